import type { ReferralCodeOwner } from '../advocates/advocates';
import { normalizeCode, normalizeEmail } from '../advocates/normalize';
import type { Brand } from '../brands/brand';
import type { ClaimRecord } from '../claims/claim-records';
import type { Executor } from '../db/transaction';
import { NotFound } from '../errors';
import { lastVisitReferrer } from '../visits/visit-records';
import type { ConversionInput } from './conversion-input';

/** Who referred an order: a claim, or the owner of a code. */
export type Referrer =
  | { via: 'claim_id' | 'pending_claim'; claim: ClaimRecord }
  | {
      via: 'referral_code' | 'coupon' | 'visit';
      owner: ReferralCodeOwner;
      /** The code was redeemed as the platform's discount code (a claim, where the plan has claims). */
      redeemed: boolean;
    };

/** The codes an order carries besides its own fields, from a platform. */
export interface OrderCodes {
  /** Discount codes the platform says were redeemed, tried with coupons_applied. */
  redeemed_codes?: string[];
  /** Codes the shopper carried (cart attribute, landing page), tried after those; unknown ones are ignored. */
  carried_codes?: string[];
}

/** What a batch's look-ups (core/conversions/paid-order-batch.ts) know of codes and claims, as it stands now. */
export interface ReferralFacts {
  codeOwner(brandId: string, code: string): ReferralCodeOwner | undefined;
  namedClaim(brandId: string, claimId: number): ClaimRecord | undefined;
  /** The customer's newest claim still waiting for its order inside the attribution window (of `advocateId` when given). */
  pendingClaim(brandId: string, emailNormalized: string, advocateId?: number): ClaimRecord | null;
}

/** Only the visitor's last stored visit can still name a referrer: a look-up of its own. */
export const ASK_VISITS = 'ask_visits';

function redeemedAndCoupons(input: ConversionInput, codes: OrderCodes) {
  return { redeemed: codes.redeemed_codes ?? [], coupons: [...input.coupons_applied.map((coupon) => coupon.code), ...(codes.redeemed_codes ?? [])] };
}

/** Every code the order names, for the batch to resolve at once. */
export function namedCodes(input: ConversionInput, codes: OrderCodes = {}): string[] {
  return [...(input.referral_code ? [input.referral_code] : []), ...redeemedAndCoupons(input, codes).coupons, ...(codes.carried_codes ?? [])];
}

/**
 * Who referred this order, in the order DECISIONS.md fixes: claim_id → referral_code → a
 * referral or mapped coupon code in coupons_applied (or redeemed) → a code the shopper carried →
 * the newest pending claim for the email within the attribution window → ASK_VISITS (the
 * visitor's last stored visit decides) → null: not a referral. From the batch's facts alone.
 */
export function referrerFromFacts(facts: ReferralFacts, brand: Brand, input: ConversionInput, codes: OrderCodes = {}): Referrer | typeof ASK_VISITS | null {
  const brandId = brand.brand_id;
  if (input.claim_id != null) {
    const claim = facts.namedClaim(brandId, input.claim_id);
    if (!claim) throw new NotFound(`claim_id ${input.claim_id} not found`);
    return { via: 'claim_id', claim };
  }

  const { redeemed, coupons } = redeemedAndCoupons(input, codes);
  const wasRedeemed = (code: string) => redeemed.some((one) => normalizeCode(one) === normalizeCode(code));
  const ownerOf = (code: string) => facts.codeOwner(brandId, code);

  if (input.referral_code) {
    const owner = ownerOf(input.referral_code);
    if (!owner) throw new NotFound(`referral_code ${input.referral_code} not found`);
    return { via: 'referral_code', owner, redeemed: wasRedeemed(input.referral_code) };
  }
  const coupon = coupons.find(ownerOf);
  if (coupon) return { via: 'coupon', owner: ownerOf(coupon)!, redeemed: wasRedeemed(coupon) };
  // A carried code counts as the referral_code the shopper would have given.
  const carriedCode = (codes.carried_codes ?? []).find(ownerOf);
  if (carriedCode) return { via: 'referral_code', owner: ownerOf(carriedCode)!, redeemed: false };

  const pending = input.email === null ? null : facts.pendingClaim(brandId, normalizeEmail(input.email));
  if (pending) return { via: 'pending_claim', claim: pending };
  return input.visitor_id ? ASK_VISITS : null;
}

/** referrerFromFacts, with the visit look-up when only a visit can tell. null: not a referral. */
export async function findReferrer(db: Executor, facts: ReferralFacts, brand: Brand, input: ConversionInput, codes: OrderCodes = {}): Promise<Referrer | null> {
  const known = referrerFromFacts(facts, brand, input, codes);
  if (known !== ASK_VISITS) return known;
  const visited = await lastVisitReferrer(db, brand.brand_id, input.visitor_id!, brand.attribution_window_days);
  return visited ? { via: 'visit', owner: visited, redeemed: false } : null;
}

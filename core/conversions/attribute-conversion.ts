import { type ReferralCodeOwner, findReferralCodes } from '../advocates/advocates';
import { normalizeCode, normalizeEmail } from '../advocates/normalize';
import type { Brand } from '../brands/brand';
import { type ClaimRecord, findClaim, newestPendingClaim } from '../claims/claim-records';
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

/**
 * Who referred this order, in the order DECISIONS.md fixes: claim_id → referral_code → a
 * referral or mapped coupon code in coupons_applied (or redeemed) → a code the shopper carried →
 * the newest pending claim for the email within the attribution window → the visitor's last
 * stored visit. Every code the order names is resolved in one query. null: not a referral.
 */
export async function findReferrer(db: Executor, brand: Brand, input: ConversionInput, codes: OrderCodes = {}): Promise<Referrer | null> {
  const brandId = brand.brand_id;
  const window = brand.attribution_window_days;

  if (input.claim_id != null) {
    const claim = await findClaim(db, brandId, input.claim_id);
    if (!claim) throw new NotFound(`claim_id ${input.claim_id} not found`);
    return { via: 'claim_id', claim };
  }

  const redeemed = new Set((codes.redeemed_codes ?? []).map(normalizeCode));
  const coupons = [...input.coupons_applied.map((coupon) => coupon.code), ...(codes.redeemed_codes ?? [])];
  const carried = codes.carried_codes ?? [];
  const owners = await findReferralCodes(db, brandId, [...(input.referral_code ? [input.referral_code] : []), ...coupons, ...carried]);
  const ownerOf = (code: string) => owners.get(normalizeCode(code));

  if (input.referral_code) {
    const owner = ownerOf(input.referral_code);
    if (!owner) throw new NotFound(`referral_code ${input.referral_code} not found`);
    return { via: 'referral_code', owner, redeemed: redeemed.has(normalizeCode(input.referral_code)) };
  }
  const coupon = coupons.find(ownerOf);
  if (coupon) return { via: 'coupon', owner: ownerOf(coupon)!, redeemed: redeemed.has(normalizeCode(coupon)) };
  // A carried code counts as the referral_code the shopper would have given.
  const carriedCode = carried.find(ownerOf);
  if (carriedCode) return { via: 'referral_code', owner: ownerOf(carriedCode)!, redeemed: false };

  const pending = input.email === null ? null : await newestPendingClaim(db, brandId, normalizeEmail(input.email), window);
  if (pending) return { via: 'pending_claim', claim: pending };

  const visited = input.visitor_id ? await lastVisitReferrer(db, brandId, input.visitor_id, window) : null;
  return visited ? { via: 'visit', owner: visited, redeemed: false } : null;
}

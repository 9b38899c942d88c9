import { normalizeEmail } from '../advocates/normalize';
import type { Brand } from '../brands/brand';
import { planAllows } from '../brands/plan-features';
import type { ClaimRecord } from '../claims/claim-records';
import type { Referrer } from './attribute-conversion';
import type { ConversionMoney } from './conversion-money';
import type { Attribution } from './conversion-records';
import type { PaidOrderInput, PaidOrderStore } from './paid-order';

/**
 * Who the order is credited to and the claim it links: a claim that decided the referrer is that
 * claim; a code-referred order links its redemption's claim when one is due (a redeemed code,
 * where the plan has claims), else the customer's pending claim of that advocate.
 */
export async function linkClaim(store: PaidOrderStore, brand: Brand, order: PaidOrderInput, referrer: Referrer, money: ConversionMoney): Promise<Attribution> {
  if ('claim' in referrer) {
    const { claim } = referrer;
    return { advocate_id: claim.advocate_id, advocate_email_normalized: null, referral_code: claim.referral_code, claim, via: referrer.via };
  }
  const { owner } = referrer;
  const credited = { advocate_id: owner.advocate_id, advocate_email_normalized: owner.advocate_email_normalized, referral_code: owner.code, via: referrer.via };
  const email = order.conversion.email;
  // A claim is about a customer's email: an email-less platform order is a conversion without one.
  if (email === null) return { ...credited, claim: null };
  const claimSource = referrer.redeemed && planAllows(brand.plan, 'claims') ? order.claim_source : null;
  const claim: ClaimRecord | null = claimSource
    ? await store.redemptionClaim(brand, owner, { ...order.conversion, email }, claimSource, money)
    : store.pendingClaim(brand.brand_id, normalizeEmail(email), owner.advocate_id);
  return { ...credited, claim };
}

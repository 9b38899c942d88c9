import { findReferralCode } from '../advocates/advocates';
import { normalizeEmail } from '../advocates/normalize';
import type { Brand } from '../brands/brand';
import { type ClaimRecord, findClaim, newestPendingClaim } from '../claims/claim-records';
import type { Executor } from '../db/transaction';
import { NotFound } from '../errors';
import { lastVisitCode } from '../visits/visit-records';
import type { ConversionInput } from './conversion-input';

export interface Attribution {
  advocate_id: number;
  advocate_email_normalized: string | null;
  referral_code: string | null;
  claim: ClaimRecord | null;
  via: 'claim_id' | 'referral_code' | 'coupon' | 'pending_claim' | 'visit';
}

/**
 * Who referred this order, in the order DECISIONS.md fixes: claim_id → referral_code → a
 * referral or mapped coupon code in coupons_applied → the newest pending claim for the email
 * within the attribution window → the visitor's last stored visit. null: not a referral.
 */
export async function attributeConversion(db: Executor, brand: Brand, input: ConversionInput): Promise<Attribution | null> {
  const brandId = brand.brand_id;
  const email = normalizeEmail(input.email);
  const window = brand.attribution_window_days;

  if (input.claim_id != null) {
    const claim = await findClaim(db, brandId, input.claim_id);
    if (!claim) throw new NotFound(`claim_id ${input.claim_id} not found`);
    return { advocate_id: claim.advocate_id, advocate_email_normalized: null, referral_code: claim.referral_code, claim, via: 'claim_id' };
  }

  const byCode = async (code: string, via: Attribution['via']): Promise<Attribution | null> => {
    const owner = await findReferralCode(db, brandId, code);
    if (!owner) return null;
    const claim = await newestPendingClaim(db, brandId, email, window, owner.advocate_id);
    return { advocate_id: owner.advocate_id, advocate_email_normalized: owner.advocate_email_normalized, referral_code: owner.code, claim, via };
  };

  if (input.referral_code) {
    const attribution = await byCode(input.referral_code, 'referral_code');
    if (!attribution) throw new NotFound(`referral_code ${input.referral_code} not found`);
    return attribution;
  }

  for (const coupon of input.coupons_applied) {
    const attribution = await byCode(coupon.code, 'coupon');
    if (attribution) return attribution;
  }

  const pending = await newestPendingClaim(db, brandId, email, window);
  if (pending) {
    return { advocate_id: pending.advocate_id, advocate_email_normalized: null, referral_code: pending.referral_code, claim: pending, via: 'pending_claim' };
  }

  if (input.visitor_id) {
    const visit = await lastVisitCode(db, brandId, input.visitor_id, window);
    if (visit) {
      const attribution = await byCode(visit.code_normalized, 'visit');
      if (attribution) return attribution;
    }
  }
  return null;
}

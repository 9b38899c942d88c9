import { type ReferralCodeOwner, findReferralCode } from '../advocates/advocates';
import { normalizeEmail } from '../advocates/normalize';
import type { Brand } from '../brands/brand';
import type { Executor } from '../db/transaction';
import { NotFound } from '../errors';
import { rewardBalance } from '../ledger/reward-ledger';

/** The one place the eligibility rule lives: check-eligibility and referral claims both ask it. */
export const ELIGIBILITY_ERRORS = ['self_referral', 'already_redeemed', 'not_advocate', 'no_reward_available'] as const;
export type EligibilityError = (typeof ELIGIBILITY_ERRORS)[number];

export type Eligibility = { eligible: true } | { eligible: false; error: EligibilityError; message: string };

export interface EligibilityQuery {
  referral_code: string;
  customer_email: string;
  type?: 'referral' | 'advocate';
}

const MESSAGES: Record<EligibilityError, string> = {
  self_referral: 'customers cannot use their own referral code',
  already_redeemed: 'this customer has already used a referral discount',
  not_advocate: 'only the advocate who owns this referral code can redeem its reward',
  no_reward_available: 'the advocate has no reward available to redeem',
};

const refused = (error: EligibilityError): Eligibility => ({ eligible: false, error, message: MESSAGES[error] });

/** Unknown code → NotFound; otherwise whether this customer may use the code. */
export async function checkEligibility(db: Executor, brand: Brand, query: EligibilityQuery): Promise<Eligibility> {
  const owner = await findReferralCode(db, brand.brand_id, query.referral_code);
  if (!owner) throw new NotFound(`referral_code ${query.referral_code} not found`);
  return eligibilityFor(db, brand, owner, query.customer_email, query.type ?? 'referral');
}

/** The rule itself, for a code already resolved to its advocate. */
export async function eligibilityFor(
  db: Executor,
  brand: Brand,
  owner: ReferralCodeOwner,
  customerEmail: string,
  type: 'referral' | 'advocate',
): Promise<Eligibility> {
  const email = normalizeEmail(customerEmail);
  if (type === 'advocate') {
    if (email !== owner.advocate_email_normalized) return refused('not_advocate');
    const { balance } = await rewardBalance(db, brand.brand_id, owner.advocate_id, brand.allow_pending_redemption);
    return balance > 0 ? { eligible: true } : refused('no_reward_available');
  }
  if (email === owner.advocate_email_normalized) return refused('self_referral');
  if (await hasRedeemedReferral(db, brand.brand_id, email)) return refused('already_redeemed');
  return { eligible: true };
}

/** A referral claim or conversion for this email at this brand that was not fully refunded. */
async function hasRedeemedReferral(db: Executor, brandId: string, emailNormalized: string): Promise<boolean> {
  const notRefunded = { brand_id: brandId, email_normalized: emailNormalized, type: 'referral' };
  const claim = await db('claims').select('claim_id').where(notRefunded).whereNot({ status: 'refunded' }).first();
  if (claim) return true;
  const conversion = await db('conversions').select('conversion_id').where(notRefunded).whereNot({ status: 'refunded' }).first();
  return conversion !== undefined;
}

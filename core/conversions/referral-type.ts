/** The type of a claim or a conversion: a referred customer, or an advocate spending their own reward. */
export const REFERRAL_TYPES = ['referral', 'advocate'] as const;
export type ReferralType = (typeof REFERRAL_TYPES)[number];

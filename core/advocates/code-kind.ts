/** A code given to an advocate (`referral`), or a platform coupon code mapped to them (`coupon`). */
export const CODE_KINDS = ['referral', 'coupon'] as const;
export type CodeKind = (typeof CODE_KINDS)[number];

/** How a discount is given (claims and conversions); 'custom' is an amount the caller worked out. */
export const DISCOUNT_TYPES = ['percentage', 'fixed', 'custom'] as const;
export type DiscountType = (typeof DISCOUNT_TYPES)[number];

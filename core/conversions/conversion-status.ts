/** A conversion's statuses (DECISIONS.md "Conversions and rewards"); the database CHECKs the same list. */
export const CONVERSION_STATUSES = ['completed', 'pending', 'partial_refund', 'refunded'] as const;
export type ConversionStatus = (typeof CONVERSION_STATUSES)[number];

/** The statuses an order can be reported in; the refund statuses come from refunds only. */
export const REPORTED_STATUSES = ['completed', 'pending'] as const satisfies readonly ConversionStatus[];

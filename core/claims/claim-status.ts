import type { ConversionStatus } from '../conversions/conversion-status';

/** A claim's statuses (DECISIONS.md "Conversions and rewards"); the database CHECKs the same list. */
export const CLAIM_STATUSES = ['pending', 'converted', 'partial_refund', 'refunded'] as const;
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];

/**
 * The claim's status when a refund sets its order's status: a refund's `new_status` names a
 * conversion status, and a claim whose order is `completed` again is `converted`.
 */
export function claimStatusFor(orderStatus: ConversionStatus): ClaimStatus {
  return orderStatus === 'completed' ? 'converted' : orderStatus;
}

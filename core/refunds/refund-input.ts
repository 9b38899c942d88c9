import { z } from 'zod';
import type { ClaimStatus } from '../claims/claim-status';
import { CONVERSION_STATUSES, type ConversionStatus } from '../conversions/conversion-status';

/** The one input a refund is recorded from (REST primary/alternate form, Shopify, Medusa). */
export const refundInputSchema = z.object({
  order_id: z.string().nullish(),
  conversion_id: z.number().int().nullish(),
  claim_id: z.number().int().nullish(),
  /** This refund's amount; omitted: derived from total_refunded, else the whole remaining amount. */
  refund_amount: z.number().nullish(),
  /** Cumulative refunded amount as the caller counts it. */
  total_refunded: z.number().nullish(),
  is_full_refund: z.boolean().nullish(),
  refund_id: z.string().nullish(),
  refund_reason: z.string().nullish(),
  referral_code: z.string().nullish(),
  new_status: z.enum(CONVERSION_STATUSES).nullish(),
  source: z.string().nullish(),
  /** ISO 4217; must be the order's currency when given. */
  currency: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).default({}),
});
export type RefundInput = z.infer<typeof refundInputSchema>;
export type RefundInputDraft = z.input<typeof refundInputSchema>;

export interface RefundResult {
  duplicate: boolean;
  /** The order's status after the refund (a duplicate of a claim's refund: the claim's status). */
  status: ConversionStatus | ClaimStatus;
  claim_updated: boolean;
  conversion_updated: boolean;
  claim_id: number | null;
  conversion_id: number | null;
  refund_id: string | null;
  refund_amount: number;
  refunded_total: number;
  remaining: number;
  /** In the brand's currency, like the reward ledger. */
  reward_reversed: number;
  /** The currency of the refund's amounts: its order's. */
  currency: string;
}

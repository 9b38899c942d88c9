import { z } from 'zod';
import { CONVERSION_STATUSES } from '../../core/conversions/conversion-status';
import type { RefundInput } from '../../core/refunds/refund-input';
import { amount, currency, looseIdentifier, metadata, orderId, recordId, refundId, text } from './fields';

export const refundRequestSchema = z
  .object({
    order_id: orderId().optional(),
    conversion_id: recordId().optional(),
    claim_id: recordId().optional(),
    refund_amount: amount().optional(),
    is_full_refund: z.boolean().optional(),
    referral_code: looseIdentifier().optional(),
    refund_id: refundId().optional(),
    total_refunded: amount().optional(),
    order_total: amount().optional(),
    refund_reason: text().optional(),
    new_status: z.enum(CONVERSION_STATUSES).optional(),
    source: text().optional(),
    currency: currency().optional(),
    metadata: metadata().optional(),
  })
  .superRefine((body, ctx) => {
    if (body.order_id === undefined && body.conversion_id === undefined && body.claim_id === undefined) {
      ctx.addIssue({ code: 'custom', path: ['order_id'], message: 'one of order_id, conversion_id or claim_id is required' });
    }
    // Primary form (is_full_refund sent): refund_amount is required too. Without is_full_refund
    // it is the alternate form, where an omitted amount means the whole remaining amount.
    if (body.is_full_refund !== undefined && body.refund_amount === undefined) {
      ctx.addIssue({ code: 'custom', path: ['refund_amount'], message: 'refund_amount is required (with is_full_refund)' });
    }
  });

/** Either form of POST /api/v1/track/refund → the one input recordRefund takes. */
export function parseRefundRequest(body: Record<string, unknown>): RefundInput {
  const request = refundRequestSchema.parse(body);
  const { order_total, metadata: extra, ...rest } = request;
  return {
    ...rest,
    metadata: { ...(extra ?? {}), ...(order_total !== undefined ? { order_total } : {}) },
  };
}

import { Invalid } from '../../core/errors';
import { amountFromCents } from '../../core/money';
import { type RefundInput, refundInputSchema } from '../../core/refunds/refund-input';
import { centsOf, parsePayload } from './map-paid-order';
import { idString } from './parse-lossless-json';
import { refundSchema } from './shopify-payloads';

export interface MappedRefund {
  refund: RefundInput;
  /** Money actually returned: the refund's successful `refund` transactions (0 for a restock only). */
  amount_cents: number;
}

/** refunds/create → the refund the REST API would record, keyed by Shopify's refund id. */
export function mapRefund(body: unknown, shopDomain: string): MappedRefund {
  const refund = parsePayload(refundSchema, body, 'refunds/create');
  const refundId = idString(refund.id);
  const orderId = idString(refund.order_id);
  if (!refundId || !orderId) throw new Invalid('refunds/create: id and order_id are required');
  const successful = (refund.transactions ?? []).filter(
    (transaction) => transaction.kind?.toLowerCase() === 'refund' && transaction.status?.toLowerCase() === 'success',
  );
  const cents = successful.reduce((sum, transaction, index) => sum + centsOf(transaction.amount, `transactions.${index}.amount`), 0);
  return {
    amount_cents: cents,
    refund: refundInputSchema.parse({
      order_id: orderId,
      refund_id: refundId,
      refund_amount: amountFromCents(cents),
      refund_reason: refund.note?.trim() || null,
      source: 'shopify',
      metadata: {
        shop: shopDomain,
        transaction_ids: successful.map((transaction) => idString(transaction.id)).filter((id) => id !== null),
      },
    }),
  };
}

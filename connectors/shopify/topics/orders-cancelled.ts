import { Invalid } from '../../../core/errors';
import { parsePayload } from '../map-paid-order';
import { idString } from '../parse-lossless-json';
import { orderSchema } from '../shopify-payloads';
import { lockOrderRefunds, recordShopifyRefund } from './refund-transactions';
import type { TopicHandler } from './topic-handler';

/** An order cancelled in these financial statuses was never paid: nothing was counted. */
const UNPAID_STATUSES = new Set(['pending', 'authorized', 'voided', 'expired']);

/**
 * orders/cancelled → a paid order that was cancelled is no sale: what was not refunded already is
 * reversed, through the same core refund, keyed `cancel:<order id>` (a repeat changes nothing).
 * An order cancelled before it was paid is closed at once.
 */
export const handleOrdersCancelled: TopicHandler = async (trx, brand, delivery, body) => {
  const order = parsePayload(orderSchema, body, 'orders/cancelled');
  const orderId = idString(order.id);
  if (!orderId) throw new Invalid('orders/cancelled: id is missing');
  if (UNPAID_STATUSES.has(order.financial_status?.toLowerCase() ?? '')) {
    return { outcome: 'ignored: cancelled before it was paid', result: { order_id: orderId } };
  }
  await lockOrderRefunds(trx, brand.brand_id, orderId);
  return recordShopifyRefund(trx, brand, {
    order_id: orderId,
    refund_id: `cancel:${orderId}`,
    // No amount: all that remains refundable.
    refund_amount: null,
    is_full_refund: true,
    refund_reason: order.cancel_reason ? `cancelled: ${order.cancel_reason}` : 'cancelled',
    source: 'shopify',
    metadata: { shop: delivery.shop_domain, cancelled_at: order.cancelled_at ?? null },
  });
};

import { mapRefund } from '../map-refund';
import { countRefund, keepTransactions, lockOrderRefunds } from './refund-transactions';
import type { TopicHandler } from './topic-handler';

/**
 * refunds/create → a refund keyed by Shopify's refund id, for the money actually returned in the
 * shop's currency; a transaction still pending is kept and counted when it succeeds.
 */
export const handleRefundsCreate: TopicHandler = async (trx, brand, delivery, body) => {
  const { refund, transactions } = mapRefund(body, delivery.shop_domain);
  const orderId = refund.order_id!;
  const refundId = refund.refund_id!;
  await lockOrderRefunds(trx, brand.brand_id, orderId);
  await keepTransactions(trx, brand.brand_id, orderId, refundId, transactions);
  return countRefund(trx, brand, { order_id: orderId, refund_id: refundId, shop: delivery.shop_domain, reason: refund.refund_reason });
};

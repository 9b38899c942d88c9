import { Invalid } from '../../../core/errors';
import { parsePayload } from '../map-paid-order';
import { refundTransaction } from '../map-refund';
import { idString } from '../parse-lossless-json';
import { transactionSchema } from '../shopify-payloads';
import { countRefund, findTransaction, keepTransactions, lockOrderRefunds } from './refund-transactions';
import type { TopicHandler } from './topic-handler';

/**
 * order_transactions/create → a refund transaction that was pending when its refund came has
 * succeeded (or failed): counted now, once. The payload names no refund and carries only the
 * buyer's currency, so the refund's delivery supplies both; one that comes first is kept for it.
 */
export const handleOrderTransactionsCreate: TopicHandler = async (trx, brand, delivery, body) => {
  const payload = parsePayload(transactionSchema, body, 'order_transactions/create');
  if (payload.kind?.toLowerCase() !== 'refund') return { outcome: `ignored: not a refund (${payload.kind ?? 'no kind'})` };
  const orderId = idString(payload.order_id);
  if (!orderId) throw new Invalid('order_transactions/create: order_id is missing');
  const transaction = refundTransaction(payload, 'order_transactions/create');
  await lockOrderRefunds(trx, brand.brand_id, orderId);
  await keepTransactions(trx, brand.brand_id, orderId, null, [transaction]);
  const kept = await findTransaction(trx, brand.brand_id, transaction.transaction_id);
  const summary = { order_id: orderId, transaction_id: transaction.transaction_id, status: kept!.status };
  if (!kept!.refund_id) return { outcome: 'waiting: its refund has not arrived', result: summary };
  if (kept!.status !== 'success') return { outcome: `ignored: the refund transaction ended ${kept!.status}`, result: summary };
  return countRefund(trx, brand, { order_id: orderId, refund_id: kept!.refund_id, shop: delivery.shop_domain });
};

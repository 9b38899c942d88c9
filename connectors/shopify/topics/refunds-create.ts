import { NotFound } from '../../../core/errors';
import { recordRefund } from '../../../core/refunds/record-refund';
import { mapRefund } from '../map-refund';
import { RetryLater, type TopicHandler } from './topic-handler';

/** refunds/create → a refund keyed by Shopify's refund id, for the money actually returned. */
export const handleRefundsCreate: TopicHandler = async (trx, brand, delivery, body) => {
  const { refund, amount_cents } = mapRefund(body, delivery.shop_domain);
  if (amount_cents === 0) return { outcome: 'ignored: no money refunded', result: { refund_id: refund.refund_id, order_id: refund.order_id } };
  try {
    const result = await recordRefund(trx, brand, refund);
    return {
      outcome: result.duplicate ? 'duplicate_refund' : 'refund_recorded',
      result: {
        order_id: refund.order_id,
        refund_id: result.refund_id,
        conversion_id: result.conversion_id,
        claim_id: result.claim_id,
        refund_amount: result.refund_amount,
        refunded_total: result.refunded_total,
        status: result.status,
      },
    };
  } catch (error) {
    if (!(error instanceof NotFound)) throw error;
    // The order was seen and was not a referral: nothing to refund.
    const orderSeen = await trx('shopify_inbox')
      .where({ brand_id: brand.brand_id, order_id: refund.order_id, topic: 'orders/paid', status: 'done' })
      .first('webhook_id');
    const noConversion = `ignored: order ${refund.order_id} has no conversion`;
    if (orderSeen) return { outcome: noConversion };
    // Not seen yet: deliveries can arrive out of order, so wait for orders/paid.
    throw new RetryLater(`order ${refund.order_id} has not been recorded (yet)`, noConversion);
  }
};

import { recordPaidOrder } from '../../../core/conversions/record-paid-order';
import { mapPaidOrder } from '../map-paid-order';
import type { TopicHandler } from './topic-handler';

/**
 * orders/paid → a conversion, and a claim when a referral code was redeemed as a discount code
 * (plans with claims): the same core call every other channel makes. Attribution takes a redeemed
 * referral code first; without one, the first code the shopper carried (cart attribute, then
 * landing page) that the brand knows. Unknown carried codes are ignored: a shopper's URL is not a
 * claim we were asked to verify. Test orders are sales only where the brand counts them.
 */
export const handleOrdersPaid: TopicHandler = async (trx, brand, delivery, body) => {
  const mapped = mapPaidOrder(body, delivery.shop_domain);
  if (mapped.test && !brand.count_test_orders) {
    return { outcome: 'ignored: a test order (the brand does not count test orders)', result: { order_id: mapped.conversion.order_id } };
  }
  const { result, claim_id } = await recordPaidOrder(trx, brand, {
    conversion: mapped.conversion,
    redeemed_codes: mapped.redeemed_codes,
    carried_codes: mapped.carried_codes,
    claim_source: 'shopify',
  });
  const orderId = mapped.conversion.order_id;
  if (!result.attributed) return { outcome: 'not_attributed', result: { order_id: orderId } };
  return {
    outcome: result.duplicate ? 'duplicate_order' : 'conversion_recorded',
    result: {
      order_id: orderId,
      conversion_id: result.conversion.conversion_id,
      claim_id,
      referral_code: result.conversion.referral_code,
      status: result.conversion.status,
    },
  };
};

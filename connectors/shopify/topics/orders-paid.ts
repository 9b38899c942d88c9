import type { Brand } from '../../../core/brands/brand';
import type { PaidOrderInput } from '../../../core/conversions/record-paid-order';
import { recordPaidOrder, writePaidOrder } from '../../../core/conversions/record-paid-order';
import type { Delivery } from '../inbox';
import { mapPaidOrder } from '../map-paid-order';
import type { HandlerOutcome, TopicHandler } from './topic-handler';

/**
 * What an orders/paid delivery asks core to record: the same paid order every other channel
 * reports, with a claim when a referral code was redeemed as a discount code (plans with claims).
 * Attribution takes a redeemed referral code first; without one, the first code the shopper
 * carried (cart attribute, then landing page) that the brand knows. Unknown carried codes are
 * ignored: a shopper's URL is not a claim we were asked to verify. Test orders are sales only
 * where the brand counts them: otherwise the outcome to record instead.
 */
export function paidOrderOf(brand: Brand, delivery: Delivery, body: unknown): { order: PaidOrderInput } | { ignored: HandlerOutcome } {
  const mapped = mapPaidOrder(body, delivery.shop_domain);
  if (mapped.test && !brand.count_test_orders) {
    return { ignored: { outcome: 'ignored: a test order (the brand does not count test orders)', result: { order_id: mapped.conversion.order_id } } };
  }
  return { order: { conversion: mapped.conversion, redeemed_codes: mapped.redeemed_codes, carried_codes: mapped.carried_codes, claim_source: 'shopify' } };
}

/** orders/paid → a conversion (and its claim), with the run's look-ups when it has them. */
export const handleOrdersPaid: TopicHandler = async (trx, brand, delivery, body, facts) => {
  const paid = paidOrderOf(brand, delivery, body);
  if ('ignored' in paid) return paid.ignored;
  const { order } = paid;
  const { result, claim_id } = facts ? await writePaidOrder(trx, { brand, order }, facts.paidOrders) : await recordPaidOrder(trx, brand, order);
  const orderId = order.conversion.order_id;
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

import type { Brand } from '../../../core/brands/brand';
import type { Knex } from 'knex';
import type { PaidOrder, PaidOrderInput, PaidOrderResult } from '../../../core/conversions/paid-order';
import { recordPaidOrders, writePaidOrders } from '../../../core/conversions/record-paid-order';
import type { Delivery } from '../inbox';
import { mapPaidOrder } from '../map-paid-order';
import { BRAND_GONE, type DeliveryRunFacts, type HandlerOutcome, type TopicHandler } from './topic-handler';

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

/** orders/paid → a conversion (and its claim), with the run's look-ups when it has them: a run of one. */
export const handleOrdersPaid: TopicHandler = async (trx, brand, delivery, body, facts) =>
  (await handleOrdersPaidRun(trx, [{ delivery, brand, body }], facts ?? null))[0]!;

/** A run's orders/paid deliveries with their brands (null: gone) and parsed bodies. */
export interface PaidDelivery {
  delivery: Delivery;
  brand: Brand | null;
  body: unknown;
}

/**
 * orders/paid deliveries written as one batch (writePaidOrders: the new conversions in one
 * statement), each answered with its own outcome; `facts` are the run's look-ups, read here when
 * the run has none. A throw fails them all: the inbox then processes them one by one.
 */
export async function handleOrdersPaidRun(trx: Knex.Transaction, deliveries: PaidDelivery[], facts: DeliveryRunFacts | null): Promise<HandlerOutcome[]> {
  const outcomes: HandlerOutcome[] = [];
  const orders: Array<{ index: number; paid: PaidOrder }> = [];
  for (const [index, { delivery, brand, body }] of deliveries.entries()) {
    if (!brand) {
      outcomes[index] = BRAND_GONE;
      continue;
    }
    const paid = paidOrderOf(brand, delivery, body);
    if ('ignored' in paid) outcomes[index] = paid.ignored;
    else orders.push({ index, paid: { brand, order: paid.order } });
  }
  if (orders.length === 0) return outcomes;
  const items = orders.map(({ paid }) => paid);
  const results = facts ? await writePaidOrders(trx, items, facts.paidOrders) : await recordPaidOrders(trx, items);
  orders.forEach(({ index, paid }, position) => (outcomes[index] = outcomeOf(paid.order, results[position]!)));
  return outcomes;
}

/** What the inbox row keeps of a recorded paid order. */
function outcomeOf(order: PaidOrderInput, { result, claim_id }: PaidOrderResult): HandlerOutcome {
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
}

import { randomUUID } from 'node:crypto';
import type { ContainerLike, Logger } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { REFERRALS_MODULE } from '../modules/referrals';
import { currencyGateOf } from './currency-check';
import type { AttemptResult } from './deliver-snapshot';
import { type DeliveryStore, sendDelivery } from './delivery-store';
import { type OrderSnapshot, type QueryGraph, findOrderIdOfPayment, readOrderGraph } from './order-graph';

/** What a subscriber knows: the event, and which order it is about (payment events name a payment). */
export interface OrderEvent {
  container: ContainerLike;
  eventName: string;
  subject: { orderId: string } | { paymentId: string };
}

/**
 * Outcome of one event, for logs and tests; `skipped` when there was nothing to report, `held` when
 * it was recorded but not sent because the store's currency is not the brand's.
 */
export type ReportResult = AttemptResult['outcome'] | 'skipped' | 'held';

/**
 * Reads the order's current state, records the signed delivery in Medusa's database, then sends it
 * once, unless the store's currency is not the brand's; what is not accepted now is re-sent by the
 * scheduled job, also after a restart.
 */
export async function reportOrderEvent(event: OrderEvent): Promise<ReportResult> {
  const logger = event.container.resolve<Logger>(ContainerRegistrationKeys.LOGGER);
  // The plugin's options reach its module, not its subscribers; the module validated them at start-up.
  const store = event.container.resolve<DeliveryStore>(REFERRALS_MODULE);
  const query = event.container.resolve<QueryGraph>(ContainerRegistrationKeys.QUERY);
  const orderId = 'orderId' in event.subject ? event.subject.orderId : await findOrderIdOfPayment(query, event.subject.paymentId);
  if (!orderId) {
    logger.info(`referral plugin: ${event.eventName} is not about an order; nothing to report`);
    return 'skipped';
  }
  const order = await readOrderGraph(query, orderId);
  if (!order) {
    logger.warn(`referral plugin: order ${orderId} of ${event.eventName} was not found; nothing to report`);
    return 'skipped';
  }

  const snapshot: OrderSnapshot = {
    version: 1,
    event_id: randomUUID(),
    event_name: event.eventName,
    occurred_at: new Date().toISOString(),
    conversion_trigger: store.options.conversionTrigger,
    order,
  };
  // BigNumber amounts serialise through their toJSON; the service accepts numbers, strings and raw values.
  const body = JSON.stringify(snapshot);
  const delivery = await store.recordDelivery({ brand_id: store.options.brandId, event_name: event.eventName, order_id: orderId, body });
  const currencies = await currencyGateOf(store).check(query, logger);
  if (currencies.state === 'mismatch') {
    // Kept pending, its attempts untouched, the reason on the row (GET /admin/referral-deliveries); sent once the currencies match.
    await store.settleDelivery(delivery.id, { status: 'pending', attempts: delivery.attempts, next_attempt_at: new Date(), last_error: currencies.message, settled_at: null });
    logger.warn(`referral plugin: ${event.eventName} of order ${orderId} recorded, not sent: the store's currency is ${currencies.storeCurrency}, the brand's ${currencies.brandCurrency}`);
    return 'held';
  }
  return sendDelivery(store, delivery, logger);
}

import { randomUUID } from 'node:crypto';
import type { ContainerLike, Logger } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { type DeliveryResult, deliverSnapshot } from './deliver-snapshot';
import { type OrderSnapshot, type QueryGraph, findOrderIdOfPayment, readOrderGraph } from './order-graph';
import { type ReferralPluginOptions, parsePluginOptions } from './plugin-options';

/** What a subscriber knows: the event, and which order it is about (payment events name a payment). */
export interface OrderEvent {
  container: ContainerLike;
  pluginOptions: Record<string, unknown> | undefined;
  eventName: string;
  subject: { orderId: string } | { paymentId: string };
}

/** Outcome of one event, for logs and tests; `skipped` when there was nothing to report. */
export type ReportResult = DeliveryResult | 'skipped';

/** Reads the order's current state and delivers it, signed, to the referral service. */
export async function reportOrderEvent(event: OrderEvent): Promise<ReportResult> {
  const logger = event.container.resolve<Logger>(ContainerRegistrationKeys.LOGGER);
  let options: ReferralPluginOptions;
  try {
    options = parsePluginOptions(event.pluginOptions);
  } catch (error) {
    logger.error(`${(error as Error).message}: ${event.eventName} was not reported`);
    return 'skipped';
  }

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
    conversion_trigger: options.conversionTrigger,
    order,
  };
  // BigNumber amounts serialise through their toJSON; the service accepts numbers, strings and raw values.
  return deliverSnapshot(JSON.stringify(snapshot), options, logger);
}

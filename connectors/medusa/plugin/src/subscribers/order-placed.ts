import type { SubscriberArgs, SubscriberConfig } from '@medusajs/framework';
import { OrderWorkflowEvents } from '@medusajs/framework/utils';
import { reportOrderEvent } from '../lib/report-order-event';

/** A new order: converts at once when the provider captured during checkout (no payment.captured follows). */
export default async function orderPlacedHandler({ event, container }: SubscriberArgs<{ id: string }>): Promise<void> {
  await reportOrderEvent({ container, eventName: event.name, subject: { orderId: event.data.id } });
}

// A fixed id: the default comes from the handler's name and could clash with a store's own subscriber.
export const config: SubscriberConfig = { event: OrderWorkflowEvents.PLACED, context: { subscriberId: 'referrals-order-placed' } };

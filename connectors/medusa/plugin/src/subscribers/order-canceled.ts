import type { SubscriberArgs, SubscriberConfig } from '@medusajs/framework';
import { OrderWorkflowEvents } from '@medusajs/framework/utils';
import { reportOrderEvent } from '../lib/report-order-event';

/** A canceled order: what was paid is refunded in full (Medusa emits no payment.refunded for it). */
export default async function orderCanceledHandler({ event, container }: SubscriberArgs<{ id: string }>): Promise<void> {
  await reportOrderEvent({ container, eventName: event.name, subject: { orderId: event.data.id } });
}

// A fixed id: the default comes from the handler's name and could clash with a store's own subscriber.
export const config: SubscriberConfig = { event: OrderWorkflowEvents.CANCELED, context: { subscriberId: 'referrals-order-canceled' } };

import type { SubscriberArgs, SubscriberConfig } from '@medusajs/framework';
import { PaymentEvents } from '@medusajs/framework/utils';
import { reportOrderEvent } from '../lib/report-order-event';

/** A refund: reported by its Medusa refund id, so each is counted once. */
export default async function paymentRefundedHandler({ event, container }: SubscriberArgs<{ id: string }>): Promise<void> {
  await reportOrderEvent({ container, eventName: event.name, subject: { paymentId: event.data.id } });
}

// A fixed id: the default comes from the handler's name and could clash with a store's own subscriber.
export const config: SubscriberConfig = { event: PaymentEvents.REFUNDED, context: { subscriberId: 'referrals-payment-refunded' } };

import type { SubscriberArgs, SubscriberConfig } from '@medusajs/framework';
import { PaymentEvents } from '@medusajs/framework/utils';
import { reportOrderEvent } from '../lib/report-order-event';

/** Money captured after checkout: the order's paid_total now says it is paid. */
export default async function paymentCapturedHandler({ event, container }: SubscriberArgs<{ id: string }>): Promise<void> {
  await reportOrderEvent({ container, eventName: event.name, subject: { paymentId: event.data.id } });
}

// A fixed id: the default comes from the handler's name and could clash with a store's own subscriber.
export const config: SubscriberConfig = { event: PaymentEvents.CAPTURED, context: { subscriberId: 'referrals-payment-captured' } };

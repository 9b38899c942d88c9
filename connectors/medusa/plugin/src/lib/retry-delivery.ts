import type { DeliveryRecord, DeliveryStore } from './delivery-store';

export type RetryResult =
  | { outcome: 'requeued'; delivery: DeliveryRecord }
  | { outcome: 'not_found' }
  | { outcome: 'already_delivered'; delivery: DeliveryRecord };

/**
 * Puts a delivery back in the queue once the merchant has fixed what made the service refuse it
 * (the brand's currency, a revoked key, …): a rejected one, or a pending one still backing off,
 * becomes pending with its attempts reset and due now, so the scheduled job sends it at its next run
 * (within 10 s). `last_error` keeps the previous answer until that attempt replaces it. A delivered
 * one is left alone. Sending it again is safe: the body carries the same event_id, and the service
 * applies an event id once (a delivery that was accepted meanwhile answers `duplicate`).
 */
export async function retryDelivery(store: Pick<DeliveryStore, 'findDelivery' | 'settleDelivery'>, id: string, now = new Date()): Promise<RetryResult> {
  const delivery = await store.findDelivery(id);
  if (!delivery) return { outcome: 'not_found' };
  if (delivery.status === 'delivered') return { outcome: 'already_delivered', delivery };
  const change = { status: 'pending' as const, attempts: 0, next_attempt_at: now, last_error: delivery.last_error, settled_at: null };
  await store.settleDelivery(id, change);
  return { outcome: 'requeued', delivery: { ...delivery, ...change } };
}

import { type AttemptResult, type DeliveryLogger, attemptDelivery, retryDelayMs } from './deliver-snapshot';
import type { ReferralPluginOptions } from './plugin-options';

export interface PendingDelivery {
  id: string;
  body: string;
  attempts: number;
}

export interface NewDelivery {
  brand_id: string;
  event_name: string;
  order_id: string;
  body: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'rejected';

/** A delivery row as the admin sees it (the body left out). */
export interface DeliveryRecord {
  id: string;
  event_name: string;
  order_id: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  settled_at: Date | null;
}

/** What an attempt leaves on the delivery row. */
export interface DeliveryChange {
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  settled_at: Date | null;
}

/** Where deliveries wait: the plugin module's table in Medusa's database (a map in unit tests). */
export interface DeliveryStore {
  readonly options: ReferralPluginOptions;
  recordDelivery(delivery: NewDelivery): Promise<PendingDelivery>;
  /** Pending deliveries whose next attempt is due, oldest first; each is held back for a while, so a run overlapping this one skips them. */
  claimDueDeliveries(now: Date, limit: number): Promise<PendingDelivery[]>;
  settleDelivery(id: string, change: DeliveryChange): Promise<void>;
  /** One delivery by its id, or null. */
  findDelivery(id: string): Promise<DeliveryRecord | null>;
}

/** Whether deliveries may be sent now; when it says no they wait, pending and untouched (see currency-check.ts). */
export type DeliveryGate = () => Promise<boolean>;

/** Sends one delivery and records the outcome: delivered, rejected for good, or due again after a backoff. */
export async function sendDelivery(store: DeliveryStore, delivery: PendingDelivery, logger: DeliveryLogger): Promise<AttemptResult['outcome']> {
  const attempts = delivery.attempts + 1;
  const result = await attemptDelivery(delivery.body, store.options, logger, attempts);
  const now = new Date();
  if (result.outcome === 'retry') {
    const next = new Date(now.getTime() + retryDelayMs(attempts, store.options));
    await store.settleDelivery(delivery.id, { status: 'pending', attempts, next_attempt_at: next, last_error: result.error, settled_at: null });
  } else {
    const status = result.outcome === 'accepted' ? 'delivered' : 'rejected';
    await store.settleDelivery(delivery.id, { status, attempts, next_attempt_at: now, last_error: result.outcome === 'rejected' ? result.error : null, settled_at: now });
  }
  return result.outcome;
}

/** The scheduled job's work: sends every due delivery once, unless the gate holds them all back. */
export async function sendDueDeliveries(store: DeliveryStore, logger: DeliveryLogger, options: { gate?: DeliveryGate; limit?: number } = {}): Promise<number> {
  const { gate, limit = 100 } = options;
  if (gate && !(await gate())) return 0;
  const due = await store.claimDueDeliveries(new Date(), limit);
  for (const delivery of due) await sendDelivery(store, delivery, logger);
  if (due.length > 0) logger.info(`referral plugin: re-sent ${due.length} pending order snapshot(s)`);
  return due.length;
}

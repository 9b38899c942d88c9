import type { DeliveryChange, DeliveryRecord, DeliveryStore, NewDelivery, PendingDelivery } from '../../connectors/medusa/plugin/src/lib/delivery-store';
import { type ReferralPluginOptions, parsePluginOptions } from '../../connectors/medusa/plugin/src/lib/plugin-options';

type Row = NewDelivery & DeliveryChange & { id: string };

/** The plugin module's delivery table, kept in a map: what the unit tests hand the subscribers. */
export class InMemoryDeliveryStore implements DeliveryStore {
  readonly options: ReferralPluginOptions;
  readonly rows: Row[] = [];

  constructor(pluginOptions: Record<string, unknown>) {
    this.options = parsePluginOptions(pluginOptions);
  }

  async recordDelivery(delivery: NewDelivery): Promise<PendingDelivery> {
    const row: Row = { ...delivery, id: `refdel_${this.rows.length + 1}`, status: 'pending', attempts: 0, next_attempt_at: new Date(), last_error: null, settled_at: null };
    this.rows.push(row);
    return { id: row.id, body: row.body, attempts: 0 };
  }

  async claimDueDeliveries(now: Date, limit: number): Promise<PendingDelivery[]> {
    const due = this.rows.filter((row) => row.status === 'pending' && row.next_attempt_at <= now).slice(0, limit);
    for (const row of due) row.next_attempt_at = new Date(now.getTime() + 2 * this.options.requestTimeoutMs);
    return due.map((row) => ({ id: row.id, body: row.body, attempts: row.attempts }));
  }

  async settleDelivery(id: string, change: DeliveryChange): Promise<void> {
    Object.assign(this.rows.find((row) => row.id === id)!, change);
  }

  async findDelivery(id: string): Promise<DeliveryRecord | null> {
    const row = this.rows.find((candidate) => candidate.id === id);
    if (!row) return null;
    const { event_name, order_id, status, attempts, next_attempt_at, last_error, settled_at } = row;
    return { id, event_name, order_id, status, attempts, next_attempt_at, last_error, settled_at };
  }

  /** The earliest a pending delivery is due again, or null when none is pending. */
  nextDue(): Date | null {
    const pending = this.rows.filter((row) => row.status === 'pending').map((row) => row.next_attempt_at.getTime());
    return pending.length > 0 ? new Date(Math.min(...pending)) : null;
  }
}

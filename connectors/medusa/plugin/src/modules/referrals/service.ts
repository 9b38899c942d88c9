import { MedusaService } from '@medusajs/framework/utils';
import type { DeliveryChange, DeliveryRecord, DeliveryStore, NewDelivery, PendingDelivery } from '../../lib/delivery-store';
import { type ReferralPluginOptions, parsePluginOptions } from '../../lib/plugin-options';
import type { SyncState, SyncStateStore } from '../../lib/promotion-sync';
import { ReferralDelivery } from './models/referral-delivery';
import { ReferralPromotionSync } from './models/referral-promotion-sync';

/**
 * The plugin's module: Medusa hands it the plugin's options from medusa-config.ts (subscribers get
 * none in 2.21), and it keeps the deliveries and the promotion sync's progress in Medusa's database.
 */
export default class ReferralsModuleService extends MedusaService({ ReferralDelivery, ReferralPromotionSync }) implements DeliveryStore, SyncStateStore {
  readonly options: ReferralPluginOptions;

  // biome-ignore lint/suspicious/noExplicitAny: MedusaService's constructor takes the module's dependencies untyped.
  constructor(dependencies: any, options?: Record<string, unknown>) {
    super(dependencies, options);
    this.options = parsePluginOptions(options);
  }

  async recordDelivery(delivery: NewDelivery): Promise<PendingDelivery> {
    const created = await this.createReferralDeliveries({ ...delivery, status: 'pending', attempts: 0, next_attempt_at: new Date() });
    return { id: created.id, body: created.body, attempts: created.attempts };
  }

  async claimDueDeliveries(now: Date, limit: number): Promise<PendingDelivery[]> {
    const due = await this.listReferralDeliveries(
      { status: 'pending', next_attempt_at: { $lte: now } },
      { order: { next_attempt_at: 'ASC' }, take: limit },
    );
    if (due.length === 0) return [];
    // Held back for two request timeouts: long enough for this run to settle them first.
    const heldUntil = new Date(now.getTime() + 2 * this.options.requestTimeoutMs);
    await this.updateReferralDeliveries(due.map((delivery) => ({ id: delivery.id, next_attempt_at: heldUntil })));
    return due.map((delivery) => ({ id: delivery.id, body: delivery.body, attempts: delivery.attempts }));
  }

  async settleDelivery(id: string, change: DeliveryChange): Promise<void> {
    await this.updateReferralDeliveries({ id, ...change });
  }

  async findDelivery(id: string): Promise<DeliveryRecord | null> {
    const [row] = await this.listReferralDeliveries(
      { id },
      { select: ['id', 'event_name', 'order_id', 'status', 'attempts', 'next_attempt_at', 'last_error', 'settled_at'], take: 1 },
    );
    if (!row) return null;
    const { event_name, order_id, status, attempts, next_attempt_at, last_error, settled_at } = row;
    return { id: row.id, event_name, order_id, status, attempts, next_attempt_at, last_error, settled_at };
  }

  async readSyncState(): Promise<SyncState> {
    const [row] = await this.listReferralPromotionSyncs({ brand_id: this.options.brandId }, { take: 1 });
    return { updatedSince: row?.updated_since ?? null, offerHash: row?.offer_hash ?? null };
  }

  async saveSyncState(state: SyncState): Promise<void> {
    const [row] = await this.listReferralPromotionSyncs({ brand_id: this.options.brandId }, { take: 1 });
    const fields = { updated_since: state.updatedSince, offer_hash: state.offerHash };
    if (row) await this.updateReferralPromotionSyncs({ id: row.id, ...fields });
    else await this.createReferralPromotionSyncs({ brand_id: this.options.brandId, ...fields });
  }
}

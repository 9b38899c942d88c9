import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { PollingWorker } from '../../core/jobs/polling-worker';
import type { ConnectorDeps } from '../../server/http';
import type { AdminApi } from './admin-api';
import { DEFAULT_SYNC_OPTIONS, type SyncOptions, leaseShops, releaseShop, syncShopDiscount } from './discount-sync';
import { startShopPassWorker } from './shop-pass-worker';
import type { ShopifyAppConfig } from './shopify-config';

/** Shops one pass takes (each gets a bounded number of calls, so a big backlog does not starve the others). */
const SHOPS_PER_PASS = 5;
/** A shop's lease: longer than its pass (at most 8 bulk additions, each polled). */
const LEASE_SECONDS = 300;

export interface DiscountPassOptions {
  brandId?: string;
  sync?: Partial<SyncOptions>;
  /** How long a shop whose sync was refused waits before the next try (default 300 s). */
  failedWaitSeconds?: number;
  logger?: Logger;
  /** The Admin API of a brand's shop; adminApiForBrand unless a test gives another. */
  apiFor: (brandId: string) => Promise<AdminApi>;
}

/** One pass over the shops whose discount may need work. Returns the codes and changes worked (0: nothing to do). */
export async function syncDiscounts(db: Knex, options: DiscountPassOptions): Promise<number> {
  const shops = await leaseShops(db, { limit: SHOPS_PER_PASS, leaseSeconds: LEASE_SECONDS, failedWaitSeconds: options.failedWaitSeconds ?? 300, brandId: options.brandId });
  let work = 0;
  for (const shop of shops) {
    try {
      work += await syncShopDiscount(db, () => options.apiFor(shop.brand_id), shop, { ...DEFAULT_SYNC_OPTIONS, logger: options.logger, ...options.sync });
    } catch (error) {
      await db('shopify_discounts')
        .where({ brand_id: shop.brand_id, shop_domain: shop.shop_domain })
        .update({ status: 'failed', last_error: String((error as Error).message).slice(0, 2000), updated_at: db.fn.now() });
    } finally {
      await releaseShop(db, shop);
    }
  }
  return work;
}

/**
 * The friend's-offer discount sync of this process (docs/merchants/shopify-discounts.md): a pass every
 * `intervalMs` (a code created anywhere reaches Shopify within about that), and at once after a
 * pass that found work, until none is left.
 */
export function startDiscountSyncWorker(deps: ConnectorDeps, appConfig: ShopifyAppConfig | null, intervalMs = 10_000): PollingWorker {
  return startShopPassWorker(deps, appConfig, 'shopify discount sync', syncDiscounts, intervalMs);
}

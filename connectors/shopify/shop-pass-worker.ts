import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { type PollingWorker, startPollingWorker } from '../../core/jobs/polling-worker';
import type { ConnectorDeps } from '../../server/http';
import { type AdminApi, adminApiForBrand } from './admin-api';
import type { ShopifyAppConfig } from './shopify-config';

/** What a pass over the linked shops is given: a logger, and each brand's shop's Admin API. */
export interface ShopPassOptions {
  logger?: Logger;
  apiFor: (brandId: string) => Promise<AdminApi>;
}

/**
 * A worker of this process that works the linked shops (the friend's-offer discount, the reward
 * codes): `pass` every `intervalMs`, and at once after a pass that found work, until none is left;
 * a failed pass is logged as `what` and the next one tries again.
 */
export function startShopPassWorker(
  deps: ConnectorDeps,
  appConfig: ShopifyAppConfig | null,
  what: string,
  pass: (db: Knex, options: ShopPassOptions) => Promise<number>,
  intervalMs: number,
): PollingWorker {
  return startPollingWorker({
    pass: () => pass(deps.db, { logger: deps.logger, apiFor: (brandId) => adminApiForBrand(deps.db, brandId, { encryptionSecret: deps.config.keyEncryptionSecret, appConfig }) }),
    intervalMs,
    onError: (error) => deps.logger.error({ err: error }, `${what} pass failed`),
  });
}

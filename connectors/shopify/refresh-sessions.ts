import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { ConnectorDeps, Worker } from '../../server/http';
import { renewSession } from './fresh-session';
import { KnexSessionStorage } from './session-storage';
import type { ShopifyAppConfig } from './shopify-config';
import { publicShopifyApp } from './shopify-library';

/** Renew a refresh token this long before it expires, even for a shop whose API we never call. */
const REFRESH_TOKEN_MARGIN = '7 days';

/** Keeps installed shops' offline sessions alive: refresh tokens expire too (90 days). */
export async function refreshExpiringSessions(db: Knex, appConfig: ShopifyAppConfig, encryptionSecret: string, logger?: Logger): Promise<number> {
  const due: Array<{ session_id: string }> = await db('shopify_sessions as s')
    .join('shopify_shops as l', function joinShop() {
      this.on('l.brand_id', 's.brand_id').andOn('l.shop_domain', 's.shop_domain');
    })
    .select('s.session_id')
    .where({ 'l.app_kind': 'public', 'l.status': 'installed' })
    .andWhere((where) =>
      where
        .where('s.refresh_token_expires_at', '<', db.raw(`now() + interval '${REFRESH_TOKEN_MARGIN}'`))
        .orWhereNull('s.expires_at'),
    );
  const shopify = publicShopifyApp(appConfig);
  const storage = new KnexSessionStorage(db, encryptionSecret);
  let renewed = 0;
  for (const { session_id } of due) {
    const session = await storage.loadSession(session_id);
    if (!session) continue;
    try {
      await renewSession(shopify, storage, session);
      renewed += 1;
    } catch (error) {
      logger?.warn({ err: error, shop: session.shop }, 'could not renew a Shopify session');
    }
  }
  return renewed;
}

const SESSION_SWEEP_MS = 3600_000;

/** Renews the public app's expiring sessions every hour while the server runs. */
export function startSessionRefresher(deps: ConnectorDeps, appConfig: ShopifyAppConfig): Worker {
  const timer = setInterval(() => {
    refreshExpiringSessions(deps.db, appConfig, deps.config.keyEncryptionSecret, deps.logger).catch((error: unknown) =>
      deps.logger.error({ err: error }, 'shopify session refresh failed'),
    );
  }, SESSION_SWEEP_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
    },
  };
}

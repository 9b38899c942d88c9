import pg from 'pg';
import type { Logger } from 'pino';
import { BRAND_CHANGED_CHANNEL, announceBrandChanged } from '../core/brands/brand-changes';
import { setHearingChanges } from './middleware/api-key-cache';

export interface CacheInvalidation {
  /** Resolves once changes are first heard (LISTEN is up). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 5_000;
// A connection that died without a FIN (a partition, a failover) is noticed by this heartbeat.
const HEARTBEAT_MS = 5_000;

/**
 * Keeps the in-process caches right when another process changes a brand or revokes a key. On
 * PostgreSQL one dedicated connection LISTENs for core's NOTIFY (see core/brands/brand-changes.ts)
 * and reconnects when it drops; until it is listening again the caches fall back to a short TTL.
 * The embedded database has no other process, so what this process announces is everything.
 */
export function startCacheInvalidation(options: { databaseUrl: string | undefined; logger: Logger }): CacheInvalidation {
  if (!options.databaseUrl) {
    setHearingChanges(true);
    return { ready: Promise.resolve(), stop: async () => setHearingChanges(false) };
  }
  return listenForBrandChanges(options.databaseUrl, options.logger);
}

function listenForBrandChanges(databaseUrl: string, logger: Logger): CacheInvalidation {
  let stopped = false;
  let client: pg.Client | null = null;
  let retryMs = FIRST_RETRY_MS;
  let retryTimer: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let heard!: () => void;
  const ready = new Promise<void>((resolve) => (heard = resolve));

  const lost = (current: pg.Client, error?: Error) => {
    if (client !== current) return; // already handled
    client = null;
    clearInterval(heartbeat);
    setHearingChanges(false);
    current.end().catch(() => undefined);
    if (stopped) return;
    logger.warn({ error: error?.message, retryInMs: retryMs }, 'cache invalidation: lost the LISTEN connection; caching briefly until it is back');
    retryTimer = setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
  };

  const connect = async () => {
    const current = new pg.Client({ connectionString: databaseUrl, keepAlive: true, query_timeout: HEARTBEAT_MS, application_name: `referrals-cache-invalidation-${process.pid}` });
    client = current;
    current.on('error', (error) => lost(current, error));
    current.on('end', () => lost(current));
    current.on('notification', (message) => {
      if (message.channel === BRAND_CHANGED_CHANNEL && message.payload) announceBrandChanged(message.payload);
    });
    try {
      await current.connect();
      await current.query(`LISTEN ${BRAND_CHANGED_CHANNEL}`);
    } catch (error) {
      lost(current, error as Error);
      return;
    }
    if (client !== current || stopped) return;
    retryMs = FIRST_RETRY_MS;
    setHearingChanges(true);
    heard();
    heartbeat = setInterval(() => current.query('select 1').catch((error: Error) => lost(current, error)), HEARTBEAT_MS);
    heartbeat.unref();
  };

  void connect();
  return {
    ready,
    async stop() {
      stopped = true;
      clearTimeout(retryTimer);
      clearInterval(heartbeat);
      const current = client;
      client = null;
      setHearingChanges(false);
      await current?.end().catch(() => undefined);
    },
  };
}

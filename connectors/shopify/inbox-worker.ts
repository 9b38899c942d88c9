import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { processInbox } from './process-inbox';
import { refreshExpiringSessions } from './refresh-sessions';
import { loadShopifyConfig } from './shopify-config';

export interface InboxWorker {
  /** Process what is due now (called right after a delivery is acknowledged). */
  kick(): void;
  stop(): Promise<void>;
}

let active: InboxWorker | null = null;

/** Tells the running worker, if any, that a delivery is waiting. */
export function notifyInboxWorker(): void {
  active?.kick();
}

const SWEEP_MS = 5_000;
const SESSION_SWEEP_MS = 3600_000;

/**
 * Processes the inbox in the background: right after each acknowledged delivery, and every few
 * seconds for retries that have come due (and deliveries left by a crash). Runs one pass at a
 * time; a kick during a pass triggers another pass after it.
 */
export function startShopifyInboxWorker(
  deps: { db: Knex; logger: Logger; config: { keyEncryptionSecret: string } },
  options: { brandId?: string } = {},
): InboxWorker {
  loadShopifyConfig(); // a malformed SHOPIFY_APP_URL or SHOPIFY_DEFAULT_PLAN stops the start, not a later request
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const pass = async () => {
    do {
      again = false;
      await processInbox(deps.db, { logger: deps.logger, limit: 200, brandId: options.brandId });
    } while (again && !stopped);
  };
  const run = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pass()
      .catch((error) => deps.logger.error({ err: error }, 'shopify inbox pass failed'))
      .finally(() => {
        running = null;
      });
  };
  const sweep = setInterval(run, SWEEP_MS);
  const sessions = setInterval(() => {
    const appConfig = loadShopifyConfig();
    if (!appConfig || stopped) return;
    refreshExpiringSessions(deps.db, appConfig, deps.config.keyEncryptionSecret, deps.logger).catch((error: unknown) =>
      deps.logger.error({ err: error }, 'shopify session refresh failed'),
    );
  }, SESSION_SWEEP_MS);
  sweep.unref();
  sessions.unref();
  const worker: InboxWorker = {
    kick: () => setImmediate(run),
    async stop() {
      stopped = true;
      clearInterval(sweep);
      clearInterval(sessions);
      if (active === worker) active = null;
      await running;
    },
  };
  active = worker;
  setImmediate(run); // deliveries left by a crash or a restart
  return worker;
}

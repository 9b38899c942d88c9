import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { enqueueDigests, enqueueReviewAlerts } from '../core/accounts/merchant-notices';
import { type PollingWorker, startPollingWorker } from '../core/jobs/polling-worker';

/** The digest goes out once a day, from this hour (UTC) on: a morning's read in Europe, the night before in the Americas. */
export const DIGEST_HOUR_UTC = 8;

/**
 * The merchants' notices (core/accounts/merchant-notices.ts): every minute, an email for each fraud
 * review opened since (to those who asked), and once the day's digest hour has come, the day's
 * digests (each written once a day: the pass after it finds them written).
 */
export function startMerchantNoticeWorker(options: { db: Knex; logger: Logger; intervalMs?: number }): PollingWorker {
  return startPollingWorker({
    pass: async () => {
      const now = new Date();
      const alerts = await enqueueReviewAlerts(options.db);
      const digests = now.getUTCHours() >= DIGEST_HOUR_UTC ? await enqueueDigests(options.db, now) : 0;
      // A pass that wrote some runs once more at once, and writes none: each is written once.
      return alerts + digests;
    },
    intervalMs: options.intervalMs ?? 60_000,
    onError: (error) => options.logger.error({ err: error }, 'merchant notices: a pass failed; the next one tries again'),
  });
}

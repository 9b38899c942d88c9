import type { Logger } from 'pino';
import { type Database, isEmbedded } from '../core/db/create-database';
import { type PollingWorker, startPollingWorker } from '../core/jobs/polling-worker';
import { analyzeStaleTables } from '../core/db/table-statistics';

/** How often the tables' change counts are looked at: one query on pg_stat_user_tables. */
const STATISTICS_INTERVAL_MS = 2000;

/**
 * Analyses the tables autovacuum has not analysed yet (PostgreSQL) or never will (the embedded
 * database), every two seconds: see core/db/table-statistics.ts.
 */
export function startStatisticsWorker(options: { db: Database; logger: Logger; intervalMs?: number }): PollingWorker {
  const everyTable = isEmbedded(options.db);
  return startPollingWorker({
    pass: async () => {
      const analysed = await analyzeStaleTables(options.db, { everyTable });
      if (analysed.length > 0) options.logger.info({ tables: analysed }, 'table statistics updated');
      return analysed.length;
    },
    intervalMs: options.intervalMs ?? STATISTICS_INTERVAL_MS,
    onError: (error) => options.logger.warn({ err: error }, 'table statistics: ANALYZE failed; tried again at the next look'),
  });
}

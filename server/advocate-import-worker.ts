import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { processImportChunk } from '../core/advocates/advocate-imports';
import { processEnrollments } from '../core/advocates/auto-enroll';
import { type PollingWorker, startPollingWorker } from '../core/jobs/polling-worker';

/** Rows one transaction creates: a chunk commits with the import's progress, the unit a crash can lose. */
export const IMPORT_CHUNK_ROWS = 1000;

/**
 * Works the advocate imports merchants upload (core/advocates/advocate-imports.ts), a chunk at a
 * time, resting between chunks so requests keep their share of the process; any process may take
 * an import (SKIP LOCKED), and one left unfinished by a crash is resumed. `brandId` limits it to
 * one brand's imports (tests on a shared database).
 */
export function startImportWorker(options: { db: Knex; logger: Logger; brandId?: string; intervalMs?: number }): PollingWorker {
  return startPollingWorker({
    // Imports, and the enrolments paid orders asked for (auto_enroll_customers): both create advocates in chunks.
    pass: async () =>
      (await processImportChunk(options.db, { chunkSize: IMPORT_CHUNK_ROWS, brandId: options.brandId })) +
      (await processEnrollments(options.db, { limit: IMPORT_CHUNK_ROWS, brandId: options.brandId })),
    intervalMs: options.intervalMs ?? 1000,
    onError: (error) => options.logger.error({ err: error }, 'advocate import: a chunk failed; it is tried again'),
    restAfterMs: (passMs) => Math.min(passMs / 2, 100),
  });
}

import type { Knex } from 'knex';
import { z } from 'zod';
import { createClaimBatcher } from '../core/claims/claim-batcher';
import { createPaidOrderBatcher } from '../core/conversions/paid-order-batcher';
import { createRefundBatcher } from '../core/refunds/refund-batcher';

/**
 * Group commit for the ingest routes (conversions, refunds, claims): how many requests share a
 * transaction, how many transactions run at once, how long the first waits for company.
 * CONVERSION_BATCH_MAX=1 writes each request in its own transaction (the bench's "before"); the
 * names say conversion because it came first, and they set every ingest route.
 */
const settings = z
  .object({
    CONVERSION_BATCH_MAX: z.coerce.number().int().min(1).max(1000).default(64),
    CONVERSION_BATCH_IN_FLIGHT: z.coerce.number().int().min(1).max(64).optional(),
    CONVERSION_BATCH_WAIT_MS: z.coerce.number().int().min(0).max(1000).default(0),
    CONVERSION_BATCH_BUSY_WAIT_MS: z.coerce.number().int().min(0).max(1000).default(2),
  })
  .parse(process.env);

export interface WriteBatchSettings {
  maxBatch: number;
  maxInFlight: number;
  maxWaitMs: number;
  busyWaitMs: number;
}

export const writeBatchSettings: WriteBatchSettings = {
  maxBatch: settings.CONVERSION_BATCH_MAX,
  // Unbatched, every request may hold a pooled connection as before.
  maxInFlight: settings.CONVERSION_BATCH_IN_FLIGHT ?? (settings.CONVERSION_BATCH_MAX === 1 ? 10 : 4),
  maxWaitMs: settings.CONVERSION_BATCH_WAIT_MS,
  busyWaitMs: settings.CONVERSION_BATCH_BUSY_WAIT_MS,
};

/** The app's batchers, one per use case: every request of the app shares their transactions. */
export function createIngestBatchers(db: Knex, options: WriteBatchSettings) {
  return { paidOrders: createPaidOrderBatcher(db, options), refunds: createRefundBatcher(db, options), claims: createClaimBatcher(db, options) };
}

export type IngestBatchers = ReturnType<typeof createIngestBatchers>;

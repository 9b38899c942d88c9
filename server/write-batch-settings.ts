import { z } from 'zod';

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
  })
  .parse(process.env);

export const writeBatchOptions = {
  maxBatch: settings.CONVERSION_BATCH_MAX,
  // Unbatched, every request may hold a pooled connection as before.
  maxInFlight: settings.CONVERSION_BATCH_IN_FLIGHT ?? (settings.CONVERSION_BATCH_MAX === 1 ? 10 : 4),
  maxWaitMs: settings.CONVERSION_BATCH_WAIT_MS,
};

import { z } from 'zod';
import { paidOrderBatcher } from '../../core/conversions/paid-order-batcher';
import type { Ctx } from '../app-context';
import { parseJsonObject } from '../middleware/json-body';
import { parseConversionRequest } from '../schemas/conversion-request';

// CONVERSION_BATCH_MAX=1 writes each conversion in its own transaction (the bench's "before").
const batching = z
  .object({
    CONVERSION_BATCH_MAX: z.coerce.number().int().min(1).max(1000).default(64),
    CONVERSION_BATCH_IN_FLIGHT: z.coerce.number().int().min(1).max(64).optional(),
    CONVERSION_BATCH_WAIT_MS: z.coerce.number().int().min(0).max(1000).default(0),
  })
  .parse(process.env);
const batchOptions = {
  maxBatch: batching.CONVERSION_BATCH_MAX,
  // Unbatched, every request may hold a pooled connection as before.
  maxInFlight: batching.CONVERSION_BATCH_IN_FLIGHT ?? (batching.CONVERSION_BATCH_MAX === 1 ? 10 : 4),
  maxWaitMs: batching.CONVERSION_BATCH_WAIT_MS,
};

/** POST /api/v1/track/conversion: 201 new, 200 duplicate, 200 `attributed: false` when no referral. */
export async function trackConversion(ctx: Ctx): Promise<void> {
  const input = parseConversionRequest(parseJsonObject(ctx.state.rawBody));
  const brand = ctx.state.brand!;
  const { result } = await paidOrderBatcher(ctx.app.context.deps.db, batchOptions).submit({ brand, order: { conversion: input } });
  if (!result.attributed) {
    ctx.status = 200;
    ctx.body = { success: true, data: { attributed: false } };
    return;
  }
  ctx.status = result.duplicate ? 200 : 201;
  // review: the fraud review holding the advocate's reward (null: not held).
  ctx.body = { success: true, data: { ...result.conversion, attributed: true, duplicate: result.duplicate, review: result.review } };
}

import type { Ctx } from '../app-context';
import { parseJsonObject } from '../middleware/json-body';
import { parseConversionRequest } from '../schemas/conversion-request';

/** POST /api/v1/track/conversion: 201 new, 200 duplicate, 200 `attributed: false` when no referral. */
export async function trackConversion(ctx: Ctx): Promise<void> {
  const input = parseConversionRequest(parseJsonObject(ctx.state.rawBody));
  const brand = ctx.state.brand!;
  const { result } = await ctx.app.context.batchers.paidOrders.submit({ brand, order: { conversion: input } });
  if (!result.attributed) {
    ctx.status = 200;
    ctx.body = { success: true, data: { attributed: false } };
    return;
  }
  ctx.status = result.duplicate ? 200 : 201;
  // review: the fraud review holding the advocate's reward (null: not held).
  ctx.body = { success: true, data: { ...result.conversion, attributed: true, duplicate: result.duplicate, review: result.review } };
}

import type { Ctx } from '../app-context';
import { parseJsonObject } from '../middleware/json-body';
import { parseRefundRequest } from '../schemas/refund-request';

/** POST /api/v1/track/refund: 200 with the new status; a repeated refund_id is `duplicate`. */
export async function trackRefund(ctx: Ctx): Promise<void> {
  const refund = parseRefundRequest(parseJsonObject(ctx.state.rawBody));
  const brand = ctx.state.brand!;
  const result = await ctx.app.context.batchers.refunds.submit({ brand, refund });
  ctx.status = 200;
  ctx.body = { success: true, data: result };
}

import { inTransaction } from '../../core/db/transaction';
import { recordRefund } from '../../core/refunds/record-refund';
import type { Ctx } from '../app-context';
import { parseJsonObject } from '../middleware/json-body';
import { parseRefundRequest } from '../schemas/refund-request';

/** POST /api/v1/track/refund: 200 with the new status; a repeated refund_id is `duplicate`. */
export async function trackRefund(ctx: Ctx): Promise<void> {
  const input = parseRefundRequest(parseJsonObject(ctx.state.rawBody));
  const brand = ctx.state.brand!;
  const result = await inTransaction(ctx.app.context.deps.db, (trx) => recordRefund(trx, brand, input));
  ctx.status = 200;
  ctx.body = { success: true, data: result };
}

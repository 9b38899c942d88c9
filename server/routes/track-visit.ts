import { inTransaction } from '../../core/db/transaction';
import { recordVisit } from '../../core/visits/record-visit';
import type { Ctx } from '../app-context';
import { parseJsonObject } from '../middleware/json-body';
import { parseVisitRequest } from '../schemas/visit-request';

/** POST /api/v1/track/visit: 200 with the code the device should keep. */
export async function trackVisit(ctx: Ctx): Promise<void> {
  const input = parseVisitRequest(parseJsonObject(ctx.state.rawBody));
  const brand = ctx.state.brand!;
  const visit = await inTransaction(ctx.app.context.deps.db, (trx) => recordVisit(trx, brand, input));
  ctx.status = 200;
  ctx.body = { success: true, data: visit };
}

import { inTransaction } from '../../core/db/transaction';
import { recordVisit } from '../../core/visits/record-visit';
import type { Ctx } from '../app-context';
import { parseJsonObject } from '../middleware/json-body';
import { parseVisitRequest } from '../schemas/visit-request';

/** POST /api/v1/track/visit: 200 with the code the device should keep. */
export async function trackVisit(ctx: Ctx): Promise<void> {
  const body = parseVisitRequest(parseJsonObject(ctx.state.rawBody));
  // The client IP the rate limiter counts, unless the caller's server names the visitor's own.
  const input = { ...body, ip_address: body.ip_address ?? ctx.ip };
  const brand = ctx.state.brand!;
  const visit = await inTransaction(ctx.app.context.deps.db, (trx) => recordVisit(trx, brand, input));
  ctx.status = 200;
  ctx.body = { success: true, data: visit };
}

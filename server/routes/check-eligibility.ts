import { inTransaction } from '../../core/db/transaction';
import { checkEligibility } from '../../core/eligibility/check-eligibility';
import type { Ctx } from '../app-context';
import { parseJsonObject } from '../middleware/json-body';
import { parseEligibilityRequest } from '../schemas/eligibility-request';

/** POST /api/v1/track/check-eligibility: 200 `{eligible}` (no success field, as the spec shows). */
export async function checkEligibilityRoute(ctx: Ctx): Promise<void> {
  const query = parseEligibilityRequest(parseJsonObject(ctx.state.rawBody));
  const brand = ctx.state.brand!;
  ctx.status = 200;
  ctx.body = await inTransaction(ctx.app.context.deps.db, (trx) => checkEligibility(trx, brand, query));
}

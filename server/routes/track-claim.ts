import { createClaim } from '../../core/claims/create-claim';
import { inTransaction } from '../../core/db/transaction';
import type { Ctx } from '../app-context';
import { parseJsonObject } from '../middleware/json-body';
import { parseClaimRequest } from '../schemas/claim-request';

/** POST /api/v1/track/claim: 201 with the pending claim; 409 (with claim_id) for a repeat within 24 h. */
export async function trackClaim(ctx: Ctx): Promise<void> {
  const input = parseClaimRequest(parseJsonObject(ctx.state.rawBody));
  const brand = ctx.state.brand!;
  const claim = await inTransaction(ctx.app.context.deps.db, (trx) => createClaim(trx, brand, input));
  ctx.status = 201;
  ctx.body = { success: true, data: claim };
}

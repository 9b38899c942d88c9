import type { Ctx } from '../app-context';
import { parseJsonObject } from '../middleware/json-body';
import { parseClaimRequest } from '../schemas/claim-request';

/** POST /api/v1/track/claim: 201 with the pending claim; 409 (with claim_id) for a repeat within 24 h. */
export async function trackClaim(ctx: Ctx): Promise<void> {
  const claim = parseClaimRequest(parseJsonObject(ctx.state.rawBody));
  const brand = ctx.state.brand!;
  const created = await ctx.app.context.batchers.claims.submit({ brand, claim });
  ctx.status = 201;
  ctx.body = { success: true, data: created };
}

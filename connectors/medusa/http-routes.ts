import Router from '@koa/router';
import { inTransaction } from '../../core/db/transaction';
import { type AppContext, type AppState, type Ctx, parseJsonObject, readRawBody } from '../../server/http';
import { applyMedusaSnapshot } from './apply-snapshot';
import { mapMedusaSnapshot } from './map-snapshot';
import { rewardIssueRoutes } from './reward-issue-routes';
import { parseMedusaSnapshot } from './snapshot-schema';
import { verifyMedusaDelivery } from './verify-delivery';

/**
 * POST /medusa/webhooks: order snapshots from the Medusa plugin, verified, then mapped to the same
 * core calls the REST API makes; /medusa/reward-issues: the reward codes it makes promotions of.
 * Connector traffic is not rate limited per IP.
 */
export function medusaRoutes(): Router<AppState, AppContext> {
  const router = new Router<AppState, AppContext>({ prefix: '/medusa' });
  router.post('/webhooks', readRawBody, verifyMedusaDelivery, receiveOrderSnapshot);
  rewardIssueRoutes(router);
  return router;
}

/** 200 with what the snapshot changed; a repeated event id is `duplicate` and changes nothing. */
async function receiveOrderSnapshot(ctx: Ctx): Promise<void> {
  const brand = ctx.state.brand!;
  // An order without currency_code is recorded in the brand's currency, so its amounts are read in it.
  const snapshot = parseMedusaSnapshot(parseJsonObject(ctx.state.rawBody), brand.currency);
  const plan = mapMedusaSnapshot(snapshot);
  const outcome = await inTransaction(ctx.app.context.deps.db, (trx) => applyMedusaSnapshot(trx, brand, snapshot, plan));
  ctx.status = 200;
  ctx.body = { success: true, data: outcome };
}

import type Router from '@koa/router';
import { advocateView, listAdvocatePage } from '../../core/advocates/advocate-page';
import { getAdvocate } from '../../core/advocates/advocates';
import { addAdvocate, addAdvocateCode, changeAdvocateStatus, editAdvocate } from '../../core/program/merchant-changes';
import type { AdvocateStatus } from '../../core/advocates/advocate-status';
import { joinAdvocate, joinByEmail } from '../../core/advocates/join-advocate';
import { inTransaction } from '../../core/db/transaction';
import type { AppContext, AppState, Ctx, Middleware } from '../app-context';
import { answer } from './answer';
import { actorOf } from './api-actor';
import { parseJsonObject } from '../middleware/json-body';
import { advocateByEmailWithFigures } from '../../core/advocates/advocate-figures';
import { FEATURE_PLANS } from '../../core/brands/plan-features';
import { requirePlan } from '../middleware/require-plan';
import { addCodeSchema, advocateByEmailQuerySchema, createAdvocateSchema, joinAdvocateSchema, listAdvocatesQuerySchema, publicJoinSchema, updateAdvocateSchema } from '../schemas/advocate-request';
import { advocatePathSchema } from '../schemas/reward-request';

const idOf = (ctx: Ctx) => advocatePathSchema.parse((ctx as Ctx & { params: Record<string, string> }).params).id;

/** POST /advocates: 201 with the advocate, their code and share link; the welcome email is queued with it. A taken email is a 409 naming the advocate. */
const create: Middleware = async (ctx) => {
  const input = createAdvocateSchema.parse(parseJsonObject(ctx.state.rawBody));
  const brand = ctx.state.brand!;
  const advocate = await inTransaction(ctx.app.context.deps.db, (trx) => addAdvocate(trx, brand.brand_id, input, actorOf(ctx)));
  answer(ctx, advocateView(brand, advocate), 201);
};

/** GET /advocates?q=&status=&limit=&cursor=: in the order they joined. */
const list: Middleware = async (ctx) => {
  const query = listAdvocatesQuerySchema.parse(ctx.query);
  const page = await listAdvocatePage(ctx.app.context.deps.db, ctx.state.brand!, { ...query, limit: query.limit ?? 50 });
  ctx.body = { success: true, data: page.advocates, has_more: page.has_more, next_cursor: page.next_cursor };
};

/**
 * GET /advocates/by-email?email=: one advocate with their figures (friends referred, rewards held,
 * approved and paid), found by email — for a platform's backend showing its logged-in customer
 * their own page (the Medusa plugin's GET /store/referrals/me). 404 when the address never joined.
 */
const byEmail: Middleware = async (ctx) => {
  const { email } = advocateByEmailQuerySchema.parse(ctx.query);
  answer(ctx, await advocateByEmailWithFigures(ctx.app.context.deps.db, ctx.state.brand!, email));
};

const show: Middleware = async (ctx) => {
  const brand = ctx.state.brand!;
  answer(ctx, advocateView(brand, await getAdvocate(ctx.app.context.deps.db, brand.brand_id, idOf(ctx))));
};

/** PATCH /advocates/{id}: a corrected name or email (a taken email is a 409 naming its advocate). */
const patch: Middleware = async (ctx) => {
  const changes = updateAdvocateSchema.parse(parseJsonObject(ctx.state.rawBody));
  const brand = ctx.state.brand!;
  const id = idOf(ctx);
  answer(ctx, advocateView(brand, await inTransaction(ctx.app.context.deps.db, (trx) => editAdvocate(trx, brand.brand_id, id, changes, actorOf(ctx)))));
};

/** POST /advocates/{id}/codes: 201 with the advocate and all their codes; a code in use is a 409. */
const addCode: Middleware = async (ctx) => {
  const { code, kind } = addCodeSchema.parse(parseJsonObject(ctx.state.rawBody));
  const brand = ctx.state.brand!;
  const id = idOf(ctx);
  const advocate = await inTransaction(ctx.app.context.deps.db, (trx) => addAdvocateCode(trx, brand.brand_id, id, code, kind ?? 'referral', actorOf(ctx)));
  answer(ctx, advocateView(brand, advocate), 201);
};

/** POST /advocates/{id}/deactivate and /reactivate: 200 with the advocate; doing it twice changes nothing. */
function setStatus(status: AdvocateStatus): Middleware {
  return async (ctx) => {
    const brand = ctx.state.brand!;
    const id = idOf(ctx);
    answer(ctx, advocateView(brand, await inTransaction(ctx.app.context.deps.db, (trx) => changeAdvocateStatus(trx, brand.brand_id, id, status, actorOf(ctx)))));
  };
}

/**
 * POST /advocates/join: a shopper joins from the store (docs/merchants/storefront.md#joining).
 * With the publishable key anyone may send any address: 202 `check_your_email` whoever it
 * belongs to, and the code goes to the address. With the secret key the store's backend joins its
 * own customer: 201 with their code and share link, 200 with the same for an address that already
 * joined (never their figures), 409 for a deactivated advocate.
 */
export const joinRoute: Middleware = async (ctx) => {
  const brand = ctx.state.brand!;
  const db = ctx.app.context.deps.db;
  if (ctx.state.apiKeyKind === 'publishable') {
    const input = publicJoinSchema.parse(parseJsonObject(ctx.state.rawBody));
    await inTransaction(db, (trx) => joinByEmail(trx, brand, input));
    return answer(ctx, { status: 'check_your_email' }, 202);
  }
  const input = joinAdvocateSchema.parse(parseJsonObject(ctx.state.rawBody));
  const joined = await inTransaction(db, (trx) => joinAdvocate(trx, brand, input));
  answer(ctx, joined, joined.joined ? 201 : 200);
};

/** The advocates routes of /api/v1 (merchant self-service over REST), each after `guard` (body, API key, plan). */
export function advocateRoutes(router: Router<AppState, AppContext>, ...guard: Middleware[]): void {
  router.post('/advocates', ...guard, create);
  router.get('/advocates', ...guard, list);
  // Before /advocates/:id, which would take "by-email" for an id. Its figures are the rewards endpoints' (plan gate).
  router.get('/advocates/by-email', ...guard, requirePlan(...FEATURE_PLANS.rewards), byEmail);
  router.get('/advocates/:id', ...guard, show);
  router.patch('/advocates/:id', ...guard, patch);
  router.post('/advocates/:id/codes', ...guard, addCode);
  router.post('/advocates/:id/deactivate', ...guard, setStatus('deactivated'));
  router.post('/advocates/:id/reactivate', ...guard, setStatus('active'));
}

import type Router from '@koa/router';
import { z } from 'zod';
import { type AppContext, type AppState, type Ctx, authenticateApiKey, parseJsonObject, readRawBody } from '../../server/http';
import { reportRevoked, reportUsed } from './reward-issue-take-back';
import { type MadeInMedusa, PLUGIN_CAPABILITIES, pullRewardIssues, reportFailed, reportIssued } from './reward-issues';

/** Issues one pull leases, unless it asks for fewer: each costs the plugin a few workflow calls. */
const DEFAULT_PULL = 10;
const MAX_PULL = 50;

const pullQuerySchema = z.object({
  limit: z
    .string()
    .regex(/^\d+$/, { error: `must be an integer from 1 to ${MAX_PULL}` })
    .transform(Number)
    .refine((limit) => limit >= 1 && limit <= MAX_PULL, { error: `must be an integer from 1 to ${MAX_PULL}` })
    .optional(),
  /** What the plugin can do, comma separated: `make` (the default: an older plugin), `take_back`, `store_credit`. */
  actions: z
    .string()
    .transform((list) => list.split(','))
    .pipe(z.array(z.enum(PLUGIN_CAPABILITIES, { error: `must be a comma-separated list of ${PLUGIN_CAPABILITIES.join(', ')}` })).min(1))
    .optional(),
});
const issuePathSchema = z.object({ id: z.string().regex(/^[1-9]\d{0,15}$/, { error: 'must be a positive integer reward issue id' }).transform(Number) });
const platformId = z.string().trim().min(1).max(200);
/** A code's promotion (`method` code, the default; `no_customer_account`: made in place of store credit for that reason), or a store credit transaction. */
const issuedSchema = z
  .object({
    method: z.enum(['code', 'store_credit']).default('code'),
    promotion_id: platformId.optional(),
    transaction_id: platformId.optional(),
    no_customer_account: z.boolean().optional(),
  })
  .superRefine((body, ctx) => {
    if (body.method === 'code' && !body.promotion_id) ctx.addIssue({ code: 'custom', path: ['promotion_id'], message: 'promotion_id is required: the id of the Medusa promotion made for the code' });
    if (body.method === 'store_credit' && !body.transaction_id) ctx.addIssue({ code: 'custom', path: ['transaction_id'], message: 'transaction_id is required: the id of the store credit transaction made for the issue' });
  })
  .transform((body): MadeInMedusa => (body.method === 'store_credit' ? { method: 'store_credit', transactionId: body.transaction_id! } : { method: 'code', promotionId: body.promotion_id!, noCustomerAccount: body.no_customer_account }));
const failedSchema = z.object({ reason: z.string({ error: "is required: Medusa's reason, as the merchant will read it" }).trim().min(1).max(2000) });

type IssueCtx = Ctx & { params: Record<string, string> };

/**
 * The plugin's reward codes (docs/merchants/medusa.md "Reward codes"), with the brand's secret key
 * (X-API-Key + X-Brand-ID), as the plugin reads the brand: GET /medusa/reward-issues leases the due
 * issues, POST …/{id}/issued and …/{id}/failed report what Medusa did with each, and …/{id}/revoked
 * and …/{id}/used what became of a code taken back.
 */
export function rewardIssueRoutes(router: Router<AppState, AppContext>): void {
  router.get('/reward-issues', authenticateApiKey, pullRoute);
  router.post('/reward-issues/:id/issued', readRawBody, authenticateApiKey, issuedRoute);
  router.post('/reward-issues/:id/failed', readRawBody, authenticateApiKey, failedRoute);
  router.post('/reward-issues/:id/revoked', authenticateApiKey, revokedRoute);
  router.post('/reward-issues/:id/used', authenticateApiKey, usedRoute);
}

/** 200 with the leased issues (none: an empty list); the first pull links the brand's store. */
async function pullRoute(ctx: Ctx): Promise<void> {
  const { limit, actions } = pullQuerySchema.parse(ctx.query);
  ctx.body = { success: true, data: await pullRewardIssues(ctx.app.context.deps.db, ctx.state.brand!.brand_id, limit ?? DEFAULT_PULL, actions) };
}

/** 200 with the issue issued; again → the same with duplicate: true. 404 an issue of no such id; 409 a code reported credited. */
async function issuedRoute(ctx: IssueCtx): Promise<void> {
  const { id } = issuePathSchema.parse(ctx.params);
  const made = issuedSchema.parse(parseJsonObject(ctx.state.rawBody));
  ctx.body = { success: true, data: await reportIssued(ctx.app.context.deps.db, ctx.state.brand!.brand_id, id, made) };
}

/** 200 with the issue failed and its attempts; 409 when it is issued already. */
async function failedRoute(ctx: IssueCtx): Promise<void> {
  const { id } = issuePathSchema.parse(ctx.params);
  const { reason } = failedSchema.parse(parseJsonObject(ctx.state.rawBody));
  ctx.body = { success: true, data: await reportFailed(ctx.app.context.deps.db, ctx.state.brand!.brand_id, id, reason) };
}

/** 200 with the issue revoked and the issue made for what is left; again → the same with duplicate: true. 409 a code not being taken back. */
async function revokedRoute(ctx: IssueCtx): Promise<void> {
  const { id } = issuePathSchema.parse(ctx.params);
  ctx.body = { success: true, data: await reportRevoked(ctx.app.context.deps.db, ctx.state.brand!.brand_id, id) };
}

/** 200 with the issue used (spent on the store before it could be taken back); 409 a code not being taken back. */
async function usedRoute(ctx: IssueCtx): Promise<void> {
  const { id } = issuePathSchema.parse(ctx.params);
  ctx.body = { success: true, data: await reportUsed(ctx.app.context.deps.db, ctx.state.brand!.brand_id, id) };
}

import type Router from '@koa/router';
import { listWebhookDeliveries, replayWebhookDelivery } from '../../core/webhooks/deliveries';
import { inTransaction } from '../../core/db/transaction';
import { createWebhookEndpoint, enableWebhookEndpoint, getWebhookEndpoint, listWebhookEndpoints, removeWebhookEndpoint } from '../../core/webhooks/endpoints';
import type { AppContext, AppState, Ctx, Middleware } from '../app-context';
import { actorOf } from './api-actor';
import { answer as ok } from './answer';
import { parseJsonObject } from '../middleware/json-body';
import { deliveryQuerySchema, parseDeliveryId, parseWebhookEndpointRequest } from '../schemas/webhook-endpoint-request';
import { testWebhookEndpoint } from '../webhooks/deliver-webhooks';
import { deliveryDepsOf, endpointOptionsOf } from '../webhooks/webhook-deps';

const brandOf = (ctx: Ctx) => ctx.state.brand!.brand_id;
/** The `:id` of the path (the router sets ctx.params). */
const idOf = (ctx: Ctx) => String((ctx as Ctx & { params: Record<string, string> }).params.id);

/** POST: 201 with the endpoint and its signing secret, shown this once. */
const create: Middleware = async (ctx) => {
  const input = parseWebhookEndpointRequest(parseJsonObject(ctx.state.rawBody));
  const { db, config } = ctx.app.context.deps;
  const endpoint = await inTransaction(db, (trx) => createWebhookEndpoint(trx, brandOf(ctx), input, endpointOptionsOf(config), actorOf(ctx)));
  ok(ctx, endpoint, 201);
};

const list: Middleware = async (ctx) => ok(ctx, await listWebhookEndpoints(ctx.app.context.deps.db, brandOf(ctx)));
const show: Middleware = async (ctx) => ok(ctx, await getWebhookEndpoint(ctx.app.context.deps.db, brandOf(ctx), idOf(ctx)));
const remove: Middleware = async (ctx) => ok(ctx, await inTransaction(ctx.app.context.deps.db, (trx) => removeWebhookEndpoint(trx, brandOf(ctx), idOf(ctx), actorOf(ctx))));
const enable: Middleware = async (ctx) => ok(ctx, await inTransaction(ctx.app.context.deps.db, (trx) => enableWebhookEndpoint(trx, brandOf(ctx), idOf(ctx), actorOf(ctx))));

const test: Middleware = async (ctx) => ok(ctx, await testWebhookEndpoint(deliveryDepsOf(ctx.app.context.deps), brandOf(ctx), idOf(ctx), actorOf(ctx)));

const deliveries: Middleware = async (ctx) => {
  const query = deliveryQuerySchema.parse(ctx.query);
  ok(ctx, await listWebhookDeliveries(ctx.app.context.deps.db, brandOf(ctx), { endpointId: idOf(ctx), ...query }));
};

/** POST /webhook-deliveries/{id}/replay: 201 with the new delivery of the same event. */
const replay: Middleware = async (ctx) => {
  const deliveryId = parseDeliveryId(idOf(ctx));
  ok(ctx, await inTransaction(ctx.app.context.deps.db, (trx) => replayWebhookDelivery(trx, brandOf(ctx), deliveryId, actorOf(ctx))), 201);
};

/** The webhook routes of /api/v1, each after `guard` (body, API key, plan). */
export function webhookEndpointRoutes(router: Router<AppState, AppContext>, ...guard: Middleware[]): void {
  router.post('/webhook-endpoints', ...guard, create);
  router.get('/webhook-endpoints', ...guard, list);
  router.get('/webhook-endpoints/:id', ...guard, show);
  router.delete('/webhook-endpoints/:id', ...guard, remove);
  router.post('/webhook-endpoints/:id/enable', ...guard, enable);
  router.post('/webhook-endpoints/:id/test', ...guard, test);
  router.get('/webhook-endpoints/:id/deliveries', ...guard, deliveries);
  router.post('/webhook-deliveries/:id/replay', ...guard, replay);
}

import { inTransaction } from '../../core/db/transaction';
import { NotFound } from '../../core/errors';
import { type WebhookDeliveryView, getWebhookDelivery, listWebhookDeliveries, replayWebhookDelivery } from '../../core/webhooks/deliveries';
import { type WebhookEndpointView, createWebhookEndpoint, enableWebhookEndpoint, getWebhookEndpoint, listWebhookEndpoints, removeWebhookEndpoint } from '../../core/webhooks/endpoints';
import { WEBHOOK_EVENT_TYPES } from '../../core/webhooks/event-types';
import type { Ctx } from '../app-context';
import { requireConfirmation } from './confirmation';
import type { ConnectorParts } from '../http/connector';
import { parseDeliveryId, webhookEndpointRequestSchema } from '../schemas/webhook-endpoint-request';
import { testWebhookEndpoint } from '../webhooks/deliver-webhooks';
import { deliveryDepsOf, endpointOptionsOf } from '../webhooks/webhook-deps';
import { webhookSettingsOf } from '../webhooks/webhook-settings';
import { sendCsv } from './csv-export';
import { CSV_MAX_ROWS, webhookNoticeSchema } from './dashboard-query';
import { runForm, seeOther } from './form-actions';
import { renderPage } from './render-page';
import { connectionsPage } from './report-pages';
import { flashSecret, takeFlashedSecret } from './secret-flash';

/** Deliveries a page of an endpoint's log shows, newest first (the CSV export holds up to CSV_MAX_ROWS). */
const LOG_ROWS = 50;

const brandIdOf = (ctx: Ctx) => ctx.state.viewer!.brand.brand_id;
const endpointPath = (id: string) => `/dashboard/connections/webhooks/${encodeURIComponent(id)}`;

/** What the merchant should do about a disabled endpoint, in a sentence. */
function whatToDo(endpoint: WebhookEndpointView, timeoutMs: number): string | null {
  if (endpoint.status !== 'disabled') return null;
  return `Fix the receiver at this URL (it must answer 2xx within ${timeoutMs / 1000} s; redirects are not followed), send a test event, then enable it: its pending deliveries resume on their schedule, and failed ones can be replayed from the log.`;
}

/** The form the Add endpoint section shows again after a refusal: what was typed, and why it was refused. */
export interface EndpointDraft {
  url: string;
  events: string[];
  description: string;
}

/** The outbound-webhooks section of Connections: each endpoint with its last delivery, the add form, a just-created secret. */
async function webhooksSection(ctx: Ctx, extra: { created?: { id: string; url: string; secret: string }; draft?: EndpointDraft; refusal?: string } = {}) {
  const { db, config } = ctx.app.context.deps;
  const brandId = brandIdOf(ctx);
  const { timeoutMs } = webhookSettingsOf(config);
  const endpoints = await listWebhookEndpoints(db, brandId);
  const rows = await Promise.all(
    endpoints.map(async (endpoint) => ({
      ...endpoint,
      path: endpointPath(endpoint.id),
      todo: whatToDo(endpoint, timeoutMs),
      last: (await listWebhookDeliveries(db, brandId, { endpointId: endpoint.id, limit: 1 }))[0] ?? null,
    })),
  );
  const notice = webhookNoticeSchema.parse(ctx.query).done === 'removed' ? 'The endpoint was removed, with its delivery log.' : null;
  return { endpoints: rows, eventTypes: WEBHOOK_EVENT_TYPES, draft: extra.draft ?? { url: '', events: [], description: '' }, created: extra.created ?? null, refusal: extra.refusal ?? null, notice };
}

/** GET /dashboard/connections: the connectors' sections and the brand's outbound webhooks (with a just-added endpoint's secret, once). */
export async function connectionsWithWebhooksPage(ctx: Ctx, connectors: readonly ConnectorParts[]): Promise<void> {
  const created = takeFlashedSecret(ctx, brandIdOf(ctx), webhookNoticeSchema.parse(ctx.query).created) ?? undefined;
  await connectionsPage(ctx, connectors, await webhooksSection(ctx, { created }));
}

/**
 * POST /dashboard/connections/webhooks: registers an endpoint through core (same address policy as
 * the API and CLI), then 303 to Connections, which shows the signing secret once (secret-flash.ts).
 * Inside the Shopify admin there is no cookie to carry it: the answer is the page itself, 201.
 * A refusal keeps what was typed.
 */
export async function addEndpointForm(ctx: Ctx, connectors: readonly ConnectorParts[], form: URLSearchParams): Promise<void> {
  const draft: EndpointDraft = { url: form.get('url') ?? '', events: form.getAll('events'), description: form.get('description') ?? '' };
  await runForm(
    ctx,
    form,
    async () => {
      const input = webhookEndpointRequestSchema.parse({ url: draft.url, events: draft.events.length > 0 ? draft.events : undefined, description: draft.description || undefined });
      const { db, config } = ctx.app.context.deps;
      const created = await inTransaction(db, (trx) => createWebhookEndpoint(trx, brandIdOf(ctx), input, endpointOptionsOf(config), ctx.state.viewer!.actor));
      const shown = { brand_id: brandIdOf(ctx), id: created.id, url: created.url, secret: created.secret };
      if (ctx.state.viewer!.embedded) return connectionsPage(ctx, connectors, await webhooksSection(ctx, { created: shown }), 201);
      flashSecret(ctx, shown);
      seeOther(ctx, '/dashboard/connections', { created: created.id });
    },
    async (status, message) => connectionsPage(ctx, connectors, await webhooksSection(ctx, { draft, refusal: message }), status),
  );
}

function testOutcome(delivery: WebhookDeliveryView): string {
  if (delivery.status === 'delivered') return `Test event delivered: the receiver answered HTTP ${delivery.last_response_status}.`;
  return `Test event not delivered: ${delivery.last_error ?? `HTTP ${delivery.last_response_status}`}.`;
}

/** The notice of an endpoint's page after one of its forms (the test's outcome, the replay's new delivery). */
async function endpointNotice(ctx: Ctx, endpointId: string): Promise<{ text: string; ok: boolean } | null> {
  const { done, delivery } = webhookNoticeSchema.parse(ctx.query);
  if (done === 'enabled') return { text: 'The endpoint is enabled again; its pending deliveries resume on their schedule.', ok: true };
  if (!delivery || (done !== 'tested' && done !== 'replayed')) return null;
  const shown = await getWebhookDelivery(ctx.app.context.deps.db, brandIdOf(ctx), delivery).catch(() => null);
  if (!shown || shown.endpoint_id !== endpointId) return null;
  if (done === 'replayed') return { text: `Delivery ${shown.replay_of} is sent again as delivery ${shown.id} (same event id); it is ${shown.status}.`, ok: true };
  return { text: testOutcome(shown), ok: shown.status === 'delivered' };
}

/** GET /dashboard/connections/webhooks/:id: the endpoint, its actions and its delivery log; ?format=csv exports the log. */
export async function endpointPage(ctx: Ctx, endpointId: string, refusal?: { status: number; message: string }): Promise<void> {
  const { db, config } = ctx.app.context.deps;
  const brandId = brandIdOf(ctx);
  const query = webhookNoticeSchema.parse(ctx.query);
  const endpoint = await getWebhookEndpoint(db, brandId, endpointId);
  const csv = query.format === 'csv';
  const listed = await listWebhookDeliveries(db, brandId, { endpointId, limit: csv ? CSV_MAX_ROWS : LOG_ROWS + 1, before: csv ? undefined : query.before });
  const deliveries = csv ? listed : listed.slice(0, LOG_ROWS);
  const olderThan = !csv && listed.length > LOG_ROWS ? deliveries[deliveries.length - 1]!.id : null;
  if (csv) {
    return sendCsv(ctx, `webhook-deliveries-${endpoint.id}`, [
      ['delivery_id', (d) => d.id],
      ['event_id', (d) => d.event_id],
      ['event_type', (d) => d.event_type],
      ['status', (d) => d.status],
      ['attempts', (d) => d.attempts],
      ['last_attempt_at', (d) => d.last_attempt_at],
      ['last_response_status', (d) => d.last_response_status],
      ['last_error', (d) => d.last_error],
      ['next_attempt_at', (d) => d.next_attempt_at],
      ['replay_of', (d) => d.replay_of],
      ['created_at', (d) => d.created_at],
    ], deliveries);
  }
  const notice = refusal ? null : await endpointNotice(ctx, endpointId);
  renderPage(
    ctx,
    'webhook-endpoint',
    {
      title: `${endpoint.url} · Connections`,
      section: '/dashboard/connections',
      endpoint: { ...endpoint, path: endpointPath(endpoint.id), todo: whatToDo(endpoint, webhookSettingsOf(config).timeoutMs) },
      deliveries,
      logRows: LOG_ROWS,
      newest: query.before === undefined,
      olderThan,
      notice: notice?.ok ? notice.text : null,
      refusal: refusal?.message ?? (notice && !notice.ok ? notice.text : null),
    },
    refusal?.status,
  );
}

/** The endpoint forms (test, enable, remove, replay): CSRF, one core call, then back to the endpoint's page (or Connections). */
export async function endpointForm(ctx: Ctx, endpointId: string, action: 'test' | 'enable' | 'remove' | 'replay', form: URLSearchParams, deliveryParam?: string): Promise<void> {
  const { db } = ctx.app.context.deps;
  const brandId = brandIdOf(ctx);
  const { actor } = ctx.state.viewer!;
  await runForm(
    ctx,
    form,
    async () => {
      if (action === 'test') {
        const delivery = await testWebhookEndpoint(deliveryDepsOf(ctx.app.context.deps), brandId, endpointId, actor);
        return seeOther(ctx, endpointPath(endpointId), { done: 'tested', delivery: delivery.id });
      }
      if (action === 'enable') {
        await inTransaction(db, (trx) => enableWebhookEndpoint(trx, brandId, endpointId, actor));
        return seeOther(ctx, endpointPath(endpointId), { done: 'enabled' });
      }
      if (action === 'remove') {
        requireConfirmation(form, 'Yes, remove this endpoint and its delivery log');
        await inTransaction(db, (trx) => removeWebhookEndpoint(trx, brandId, endpointId, actor));
        return seeOther(ctx, '/dashboard/connections', { done: 'removed' });
      }
      const original = await getWebhookDelivery(db, brandId, parseDeliveryId(deliveryParam ?? ''));
      if (original.endpoint_id !== endpointId) throw new NotFound(`webhook delivery ${original.id} not found`);
      const replayed = await inTransaction(db, (trx) => replayWebhookDelivery(trx, brandId, original.id, actor));
      seeOther(ctx, endpointPath(endpointId), { done: 'replayed', delivery: replayed.id });
    },
    (status, message) => endpointPage(ctx, endpointId, { status, message }),
  );
}

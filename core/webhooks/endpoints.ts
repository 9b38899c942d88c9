import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { changedFields, recordAudit } from '../audit/audit-log';
import { brandChanged } from '../brands/brand-changes';
import { encryptSecret } from '../brands/key-encryption';
import type { Executor } from '../db/transaction';
import { NotFound } from '../errors';
import { checkWebhookUrl } from './address-policy';
import type { WebhookEventType } from './event-types';

/** A brand's webhook endpoints: the read API the CLI, the REST API and the dashboard share. */
export interface WebhookEndpointView {
  id: string;
  url: string;
  /** null: every event type. */
  events: WebhookEventType[] | null;
  description: string | null;
  status: 'active' | 'disabled';
  /** Why delivery stopped (shown to the merchant); null while active. */
  disabled_reason: string | null;
  disabled_at: string | null;
  consecutive_failures: number;
  failing_since: string | null;
  created_at: string;
}

export interface NewWebhookEndpoint {
  url: string;
  events?: WebhookEventType[] | null;
  description?: string | null;
}

interface EndpointRow {
  brand_id: string;
  endpoint_id: string;
  url: string;
  events: WebhookEventType[] | null;
  description: string | null;
  secret_encrypted: string;
  status: 'active' | 'disabled';
  disabled_reason: string | null;
  disabled_at: Date | null;
  consecutive_failures: number;
  failing_since: Date | null;
  created_at: Date;
}

const iso = (date: Date | null) => (date ? new Date(date).toISOString() : null);

function toView(row: EndpointRow): WebhookEndpointView {
  return {
    id: row.endpoint_id,
    url: row.url,
    events: row.events,
    description: row.description,
    status: row.status,
    disabled_reason: row.disabled_reason,
    disabled_at: iso(row.disabled_at),
    consecutive_failures: row.consecutive_failures,
    failing_since: iso(row.failing_since),
    created_at: iso(row.created_at)!,
  };
}

/** A Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64. */
function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** What the audit log keeps of an endpoint: where it delivers and what, never its secret. */
const auditedFacts = (endpoint: WebhookEndpointView) => ({ url: endpoint.url, events: endpoint.events, description: endpoint.description });
const subjectOf = (endpointId: string) => `webhook_endpoint:${endpointId}`;

/**
 * Registers an endpoint and returns it with its signing secret, which is shown this once and
 * stored only encrypted (like API keys). A bad or private URL → Invalid naming `url`. The audit
 * log names `actor` (docs/merchants/merchant-accounts.md), as for every change below.
 */
export async function createWebhookEndpoint(
  trx: Knex.Transaction,
  brandId: string,
  input: NewWebhookEndpoint,
  options: { encryptionSecret: string; allowPrivate: boolean },
  actor: string,
): Promise<WebhookEndpointView & { secret: string }> {
  const url = checkWebhookUrl(input.url, options.allowPrivate);
  const secret = generateSigningSecret();
  const events = input.events && input.events.length > 0 ? [...new Set(input.events)] : null;
  const [row]: EndpointRow[] = await trx('webhook_endpoints')
    .insert({
      brand_id: brandId,
      endpoint_id: `ep_${randomUUID().replace(/-/g, '')}`,
      url: url.toString(),
      events,
      description: input.description ?? null,
      secret_encrypted: encryptSecret(secret, options.encryptionSecret),
    })
    .returning('*');
  await brandChanged(trx, brandId);
  const endpoint = toView(row!);
  await recordAudit(trx, { brandId, actor, action: 'webhook_endpoint.create', subject: subjectOf(endpoint.id), after: auditedFacts(endpoint) });
  return { ...endpoint, secret };
}

export async function listWebhookEndpoints(db: Executor, brandId: string): Promise<WebhookEndpointView[]> {
  const rows: EndpointRow[] = await db('webhook_endpoints').where({ brand_id: brandId }).orderBy('created_at');
  return rows.map(toView);
}

async function endpointRow(db: Executor, brandId: string, endpointId: string): Promise<EndpointRow> {
  const row: EndpointRow | undefined = await db('webhook_endpoints').where({ brand_id: brandId, endpoint_id: endpointId }).first();
  if (!row) throw new NotFound(`webhook endpoint ${endpointId} not found`);
  return row;
}

export async function getWebhookEndpoint(db: Executor, brandId: string, endpointId: string): Promise<WebhookEndpointView> {
  return toView(await endpointRow(db, brandId, endpointId));
}

/** Deletes the endpoint with its delivery log; its events stay for the other endpoints. */
export async function removeWebhookEndpoint(trx: Knex.Transaction, brandId: string, endpointId: string, actor: string): Promise<{ id: string; removed: true }> {
  // Counted from RETURNING: the embedded driver does not report a delete's row count.
  const removed: EndpointRow[] = await trx('webhook_endpoints').where({ brand_id: brandId, endpoint_id: endpointId }).delete().returning('*');
  if (removed.length === 0) throw new NotFound(`webhook endpoint ${endpointId} not found`);
  await brandChanged(trx, brandId);
  await recordAudit(trx, { brandId, actor, action: 'webhook_endpoint.remove', subject: subjectOf(endpointId), before: auditedFacts(toView(removed[0]!)) });
  return { id: endpointId, removed: true };
}

/** What enabling an endpoint moves (the audit log keeps those that did). */
const deliveryState = (endpoint: WebhookEndpointView) => ({ status: endpoint.status, disabled_reason: endpoint.disabled_reason, consecutive_failures: endpoint.consecutive_failures });

/** Active again, with a clean failure count; its pending deliveries resume on their schedule. Recorded when it moved something. */
export async function enableWebhookEndpoint(trx: Knex.Transaction, brandId: string, endpointId: string, actor: string): Promise<WebhookEndpointView> {
  const before = toView(await endpointRow(trx, brandId, endpointId));
  const [row]: EndpointRow[] = await trx('webhook_endpoints')
    .where({ brand_id: brandId, endpoint_id: endpointId })
    .update({ status: 'active', disabled_reason: null, disabled_at: null, consecutive_failures: 0, failing_since: null, updated_at: trx.fn.now() })
    .returning('*');
  await brandChanged(trx, brandId);
  const after = toView(row!);
  const changed = changedFields(deliveryState(before), deliveryState(after));
  if (Object.keys(changed.after).length > 0) await recordAudit(trx, { brandId, actor, action: 'webhook_endpoint.enable', subject: subjectOf(endpointId), ...changed });
  return after;
}

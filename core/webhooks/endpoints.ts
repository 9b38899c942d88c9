import { randomBytes, randomUUID } from 'node:crypto';
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

/**
 * Registers an endpoint and returns it with its signing secret, which is shown this once and
 * stored only encrypted (like API keys). A bad or private URL → Invalid naming `url`.
 */
export async function createWebhookEndpoint(
  db: Executor,
  brandId: string,
  input: NewWebhookEndpoint,
  options: { encryptionSecret: string; allowPrivate: boolean },
): Promise<WebhookEndpointView & { secret: string }> {
  const url = checkWebhookUrl(input.url, options.allowPrivate);
  const secret = generateSigningSecret();
  const events = input.events && input.events.length > 0 ? [...new Set(input.events)] : null;
  const [row]: EndpointRow[] = await db('webhook_endpoints')
    .insert({
      brand_id: brandId,
      endpoint_id: `ep_${randomUUID().replace(/-/g, '')}`,
      url: url.toString(),
      events,
      description: input.description ?? null,
      secret_encrypted: encryptSecret(secret, options.encryptionSecret),
    })
    .returning('*');
  await brandChanged(db, brandId);
  return { ...toView(row!), secret };
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
export async function removeWebhookEndpoint(db: Executor, brandId: string, endpointId: string): Promise<{ id: string; removed: true }> {
  // Counted from RETURNING: the embedded driver does not report a delete's row count.
  const removed = await db('webhook_endpoints').where({ brand_id: brandId, endpoint_id: endpointId }).delete().returning('endpoint_id');
  if (removed.length === 0) throw new NotFound(`webhook endpoint ${endpointId} not found`);
  await brandChanged(db, brandId);
  return { id: endpointId, removed: true };
}

/** Active again, with a clean failure count; its pending deliveries resume on their schedule. */
export async function enableWebhookEndpoint(db: Executor, brandId: string, endpointId: string): Promise<WebhookEndpointView> {
  const [row]: EndpointRow[] = await db('webhook_endpoints')
    .where({ brand_id: brandId, endpoint_id: endpointId })
    .update({ status: 'active', disabled_reason: null, disabled_at: null, consecutive_failures: 0, failing_since: null, updated_at: db.fn.now() })
    .returning('*');
  if (!row) throw new NotFound(`webhook endpoint ${endpointId} not found`);
  await brandChanged(db, brandId);
  return toView(row);
}

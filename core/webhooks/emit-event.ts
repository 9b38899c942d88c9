import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { brandHasEndpoints } from './endpoint-presence';
import type { WebhookEventType } from './event-types';

export interface WebhookEvent {
  type: WebhookEventType;
  /** The object as the REST API returns it. */
  data: unknown;
}

/** What every delivery of an event sends (the Standard Webhooks payload shape, plus the event id). */
export interface WebhookPayload {
  id: string;
  type: string;
  timestamp: string;
  data: unknown;
}

export function newEventId(): string {
  return `evt_${randomUUID()}`;
}

export function payloadOf(id: string, type: string, data: unknown): WebhookPayload {
  return { id, type, timestamp: new Date().toISOString(), data };
}

// One statement for all of a change's events: an event is kept only when an active endpoint
// subscribes to it, with one pending delivery per such endpoint. json (not jsonb) keeps the
// payload's key order.
const EMIT_SQL = `
WITH event AS (
  SELECT * FROM json_to_recordset(?::json) AS e(event_id text, type text, payload json)
),
target AS (
  SELECT event.event_id, endpoint.endpoint_id FROM event
    JOIN webhook_endpoints endpoint
      ON endpoint.brand_id = ? AND endpoint.status = 'active' AND (endpoint.events IS NULL OR event.type = ANY (endpoint.events))
),
kept AS (
  INSERT INTO webhook_events (brand_id, event_id, type, payload)
  SELECT ?, event_id, type, payload FROM event WHERE event_id IN (SELECT event_id FROM target)
)
INSERT INTO webhook_deliveries (brand_id, endpoint_id, event_id)
SELECT ?, endpoint_id, event_id FROM target`;

/**
 * The one way a change tells webhook endpoints about itself: called by the core use case inside
 * its own transaction (an outbox), so the events commit or roll back with the change. A brand
 * without an active endpoint costs nothing once its absence is cached.
 */
export async function emitWebhookEvents(trx: Knex.Transaction, brandId: string, events: WebhookEvent[]): Promise<void> {
  if (events.length === 0 || !(await brandHasEndpoints(trx, brandId))) return;
  const rows = events.map(({ type, data }) => {
    const id = newEventId();
    return { event_id: id, type, payload: payloadOf(id, type, data) };
  });
  await trx.raw(EMIT_SQL, [JSON.stringify(rows), brandId, brandId, brandId]);
}

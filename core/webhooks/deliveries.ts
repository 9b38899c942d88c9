import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit-log';
import { brandChanged } from '../brands/brand-changes';
import type { Executor } from '../db/transaction';
import { NotFound } from '../errors';
import { type WebhookPayload, newEventId, payloadOf } from './emit-event';
import { TEST_EVENT_TYPE } from './event-types';
import { retryDelaySeconds } from './retry-schedule';

/** The delivery log of a brand's webhooks: what was sent where, and how it went. */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveryView {
  id: number;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  /** When the next attempt is due; null once delivered or failed. */
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  delivered_at: string | null;
  /** The delivery this one replays. */
  replay_of: number | null;
  created_at: string;
}

interface DeliveryRow {
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  last_attempt_at: Date | null;
  last_response_status: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  replay_of: string | null;
  created_at: Date;
}

const iso = (date: Date | null) => (date ? new Date(date).toISOString() : null);

function toView(row: DeliveryRow): WebhookDeliveryView {
  return {
    id: Number(row.delivery_id),
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.type,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    last_attempt_at: iso(row.last_attempt_at),
    last_response_status: row.last_response_status,
    last_error: row.last_error,
    delivered_at: iso(row.delivered_at),
    replay_of: row.replay_of === null ? null : Number(row.replay_of),
    created_at: iso(row.created_at)!,
  };
}

const DELIVERY_COLUMNS = [
  'd.delivery_id', 'd.endpoint_id', 'd.event_id', 'e.type', 'd.status', 'd.attempts', 'd.next_attempt_at', 'd.last_attempt_at',
  'd.last_response_status', 'd.last_error', 'd.delivered_at', 'd.replay_of', 'd.created_at',
];

function deliveries(db: Executor, brandId: string) {
  return db('webhook_deliveries as d')
    .join('webhook_events as e', (join) => join.on('e.brand_id', 'd.brand_id').andOn('e.event_id', 'd.event_id'))
    .select(DELIVERY_COLUMNS)
    .where('d.brand_id', brandId);
}

export interface DeliveryFilter {
  endpointId?: string;
  status?: DeliveryStatus;
  limit?: number;
  /** Only deliveries older than this one (the next page of a newest-first log). */
  before?: number;
}

/** Newest first (at most 100 unless asked), optionally one endpoint's (which must exist). */
export async function listWebhookDeliveries(db: Executor, brandId: string, filter: DeliveryFilter = {}): Promise<WebhookDeliveryView[]> {
  const query = deliveries(db, brandId).orderBy('d.delivery_id', 'desc').limit(filter.limit ?? 100);
  if (filter.endpointId !== undefined) {
    const endpoint = await db('webhook_endpoints').where({ brand_id: brandId, endpoint_id: filter.endpointId }).first('endpoint_id');
    if (!endpoint) throw new NotFound(`webhook endpoint ${filter.endpointId} not found`);
    query.andWhere('d.endpoint_id', filter.endpointId);
  }
  if (filter.status !== undefined) query.andWhere('d.status', filter.status);
  if (filter.before !== undefined) query.andWhere('d.delivery_id', '<', filter.before);
  return (await query).map(toView);
}

export async function getWebhookDelivery(db: Executor, brandId: string, deliveryId: number): Promise<WebhookDeliveryView> {
  const row: DeliveryRow | undefined = await deliveries(db, brandId).andWhere('d.delivery_id', deliveryId).first();
  if (!row) throw new NotFound(`webhook delivery ${deliveryId} not found`);
  return toView(row);
}

/** Sends the delivery's event again, as a new delivery (same event id, so receivers can deduplicate), due now; the audit log names `actor`. */
export async function replayWebhookDelivery(trx: Knex.Transaction, brandId: string, deliveryId: number, actor: string): Promise<WebhookDeliveryView> {
  const { rows } = await trx.raw(
    `INSERT INTO webhook_deliveries (brand_id, endpoint_id, event_id, replay_of)
     SELECT brand_id, endpoint_id, event_id, delivery_id FROM webhook_deliveries WHERE brand_id = ? AND delivery_id = ?
     RETURNING delivery_id`,
    [brandId, deliveryId],
  );
  const inserted = (rows as Array<{ delivery_id: string }>)[0];
  if (!inserted) throw new NotFound(`webhook delivery ${deliveryId} not found`);
  const replayed = await getWebhookDelivery(trx, brandId, Number(inserted.delivery_id));
  await recordAudit(trx, {
    brandId,
    actor,
    action: 'webhook_delivery.replay',
    subject: `webhook_endpoint:${replayed.endpoint_id}`,
    after: { delivery_id: replayed.id, replay_of: deliveryId, event_id: replayed.event_id, event_type: replayed.event_type },
  });
  return replayed;
}

/** A delivery taken by a worker: everything needed to send it. */
export interface DueDelivery {
  brand_id: string;
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  type: string;
  attempts: number;
  url: string;
  secret_encrypted: string;
  payload: WebhookPayload;
}

/**
 * Takes up to `limit` due deliveries of active endpoints, oldest due first, and leases them for
 * `leaseSeconds` (their next attempt moves that far out) in one statement: FOR UPDATE SKIP LOCKED
 * means two workers never take the same one, and a worker that dies mid-send leaves it to be
 * taken again when the lease runs out. The attempt itself runs outside any transaction.
 */
export async function takeDueDeliveries(db: Knex, options: { limit: number; leaseSeconds: number; brandId?: string }): Promise<DueDelivery[]> {
  const { rows } = await db.raw(
    `WITH due AS (
       SELECT d.brand_id, d.delivery_id FROM webhook_deliveries d
         JOIN webhook_endpoints endpoint ON endpoint.brand_id = d.brand_id AND endpoint.endpoint_id = d.endpoint_id
        WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND endpoint.status = 'active'
          AND (?::uuid IS NULL OR d.brand_id = ?::uuid)
        ORDER BY d.next_attempt_at
        LIMIT ?
        FOR UPDATE OF d SKIP LOCKED
     )
     UPDATE webhook_deliveries d SET next_attempt_at = now() + make_interval(secs => ?)
       FROM due, webhook_endpoints endpoint, webhook_events event
      WHERE d.brand_id = due.brand_id AND d.delivery_id = due.delivery_id
        AND endpoint.brand_id = d.brand_id AND endpoint.endpoint_id = d.endpoint_id
        AND event.brand_id = d.brand_id AND event.event_id = d.event_id
     RETURNING d.brand_id, d.delivery_id, d.endpoint_id, d.event_id, event.type, d.attempts, endpoint.url, endpoint.secret_encrypted, event.payload`,
    [options.brandId ?? null, options.brandId ?? null, options.limit, options.leaseSeconds],
  );
  return rows as DueDelivery[];
}

/** How one attempt went. */
export interface AttemptOutcome {
  ok: boolean;
  /** The receiver's HTTP status, when it answered. */
  status: number | null;
  /** Why it failed (timeout, connection refused, a non-2xx answer...). */
  error: string | null;
}

export interface HealthPolicy {
  /** An endpoint is disabled after this many failed attempts in a row. */
  disableAfterFailures: number;
  /** ... or when it has been failing, without a success, for this many days. */
  disableAfterDays: number;
  /** Shrinks the retry schedule (tests); 1 in production. */
  retryScale: number;
}

/**
 * Records an attempt: delivered on success; otherwise retried on the schedule or, after the last
 * attempt, failed. A test event is tried once and does not count toward the endpoint's health;
 * any other attempt resets (success) or extends (failure) the endpoint's run of failures, which
 * disables it, with the reason stored, past the policy's limits.
 */
export async function recordAttempt(db: Knex, delivery: DueDelivery, outcome: AttemptOutcome, policy: HealthPolicy): Promise<{ status: DeliveryStatus; endpointDisabled: boolean }> {
  const attempts = delivery.attempts + 1;
  const isTest = delivery.type === TEST_EVENT_TYPE;
  const delay = outcome.ok || isTest ? null : retryDelaySeconds(attempts, policy.retryScale);
  const status: DeliveryStatus = outcome.ok ? 'delivered' : delay === null ? 'failed' : 'pending';
  const key = { brand_id: delivery.brand_id, delivery_id: delivery.delivery_id };
  return db.transaction(async (trx) => {
    // Only if nobody recorded an attempt since it was taken (a lease outlived by a stalled worker).
    const recorded = await trx('webhook_deliveries')
      .where({ ...key, status: 'pending', attempts: delivery.attempts })
      .update({
        status,
        attempts,
        last_attempt_at: trx.fn.now(),
        last_response_status: outcome.status,
        last_error: outcome.error?.slice(0, 1000) ?? null,
        delivered_at: outcome.ok ? trx.fn.now() : null,
        next_attempt_at: delay === null ? trx.fn.now() : trx.raw('now() + make_interval(secs => ?)', [delay]),
      });
    if (recorded === 0 || isTest) return { status, endpointDisabled: false };
    const endpoint = { brand_id: delivery.brand_id, endpoint_id: delivery.endpoint_id };
    if (outcome.ok) {
      // Only an endpoint with failures to forget is written: successes to a healthy one neither
      // queue on its row lock nor leave a dead row version each.
      await trx('webhook_endpoints')
        .where(endpoint)
        .andWhere((failing) => failing.where('consecutive_failures', '>', 0).orWhereNotNull('failing_since'))
        .update({ consecutive_failures: 0, failing_since: null });
      return { status, endpointDisabled: false };
    }
    const { rows } = await trx.raw(
      `UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1, failing_since = coalesce(failing_since, now()),
         status = CASE WHEN status = 'active' AND (consecutive_failures + 1 >= ? OR failing_since <= now() - ? * interval '1 day') THEN 'disabled' ELSE status END
       WHERE brand_id = ? AND endpoint_id = ?
       RETURNING status, consecutive_failures, failing_since, disabled_at`,
      [policy.disableAfterFailures, policy.disableAfterDays, delivery.brand_id, delivery.endpoint_id],
    );
    const after = (rows as Array<{ status: string; consecutive_failures: number; failing_since: Date; disabled_at: Date | null }>)[0];
    const justDisabled = after?.status === 'disabled' && after.disabled_at === null;
    if (justDisabled) {
      const cause =
        after.consecutive_failures >= policy.disableAfterFailures
          ? `${after.consecutive_failures} consecutive failed attempts`
          : `failing for more than ${policy.disableAfterDays} days`;
      const reason = `disabled after ${cause} (failing since ${new Date(after.failing_since).toISOString()}); last error: ${outcome.error ?? 'unknown'}`;
      await trx('webhook_endpoints').where(endpoint).update({ disabled_reason: reason.slice(0, 1000), disabled_at: trx.fn.now(), updated_at: trx.fn.now() });
      await brandChanged(trx, delivery.brand_id);
    }
    return { status, endpointDisabled: justDisabled };
  });
}

/**
 * A `webhook.test` event for one endpoint, leased to the caller who sends it at once (see
 * takeDueDeliveries): returned ready to send. The audit log names `actor`.
 */
export async function createTestDelivery(db: Knex, brandId: string, endpointId: string, leaseSeconds: number, actor: string): Promise<DueDelivery> {
  return db.transaction(async (trx) => {
    const endpoint = await trx('webhook_endpoints').where({ brand_id: brandId, endpoint_id: endpointId }).first('url', 'secret_encrypted');
    if (!endpoint) throw new NotFound(`webhook endpoint ${endpointId} not found`);
    const id = newEventId();
    const payload = payloadOf(id, TEST_EVENT_TYPE, { message: 'A test event sent by `webhook test`', endpoint_id: endpointId });
    await trx('webhook_events').insert({ brand_id: brandId, event_id: id, type: TEST_EVENT_TYPE, payload: JSON.stringify(payload) });
    const [row] = await trx('webhook_deliveries')
      .insert({ brand_id: brandId, endpoint_id: endpointId, event_id: id, next_attempt_at: trx.raw('now() + make_interval(secs => ?)', [leaseSeconds]) })
      .returning(['delivery_id', 'attempts']);
    await recordAudit(trx, { brandId, actor, action: 'webhook_endpoint.test', subject: `webhook_endpoint:${endpointId}`, after: { delivery_id: Number(row.delivery_id), event_type: TEST_EVENT_TYPE } });
    return {
      brand_id: brandId,
      delivery_id: String(row.delivery_id),
      endpoint_id: endpointId,
      event_id: id,
      type: TEST_EVENT_TYPE,
      attempts: row.attempts,
      url: endpoint.url,
      secret_encrypted: endpoint.secret_encrypted,
      payload,
    };
  });
}

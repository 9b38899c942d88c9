import type { Executor } from '../../core/db/transaction';
import { NotFound } from '../../core/errors';

/** One verified webhook delivery, as kept in shopify_inbox. */
export interface Delivery {
  brand_id: string;
  webhook_id: string;
  shop_domain: string;
  topic: string;
  api_version: string | null;
  event_id: string | null;
  triggered_at: Date | null;
  order_id: string | null;
  body: string;
  status: 'pending' | 'done' | 'failed';
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  outcome: string | null;
  result: unknown;
  received_at: Date;
  processed_at: Date | null;
}

export type NewDelivery = Pick<Delivery, 'brand_id' | 'webhook_id' | 'shop_domain' | 'topic' | 'api_version' | 'event_id' | 'order_id' | 'body'> & {
  triggered_at: string | null;
};

/**
 * Keeps a delivery once per (brand, X-Shopify-Webhook-Id) and once per (brand, X-Shopify-Event-Id):
 * Shopify retries an event under a new webhook id. False when it was already kept.
 */
export async function acceptDelivery(db: Executor, delivery: NewDelivery): Promise<boolean> {
  const triggeredAt = delivery.triggered_at && !Number.isNaN(Date.parse(delivery.triggered_at)) ? delivery.triggered_at : null;
  const inserted = await db('shopify_inbox')
    .insert({ ...delivery, triggered_at: triggeredAt })
    // No conflict target: either unique key (webhook id, event id) makes it a repeat.
    .onConflict()
    .ignore()
    .returning('webhook_id');
  return inserted.length > 0;
}

export interface InboxFilter {
  brandId?: string;
  status?: Delivery['status'];
  topic?: string;
  limit?: number;
}

const LISTED_COLUMNS = [
  'brand_id', 'webhook_id', 'shop_domain', 'topic', 'order_id', 'status', 'attempts', 'next_attempt_at',
  'last_error', 'outcome', 'result', 'received_at', 'processed_at',
];

/** The newest deliveries first, without their bodies. */
export async function listInbox(db: Executor, filter: InboxFilter = {}): Promise<Array<Omit<Delivery, 'body'>>> {
  const query = db('shopify_inbox').select(LISTED_COLUMNS).orderBy('received_at', 'desc').limit(filter.limit ?? 50);
  if (filter.brandId) query.where({ brand_id: filter.brandId });
  if (filter.status) query.where({ status: filter.status });
  if (filter.topic) query.where({ topic: filter.topic });
  return query;
}

/** Counts per status, for a summary line. */
export async function inboxCounts(db: Executor, brandId?: string): Promise<Record<string, number>> {
  const query = db('shopify_inbox').select('status').count({ count: '*' }).groupBy('status');
  if (brandId) query.where({ brand_id: brandId });
  const rows = (await query) as unknown as Array<{ status: string; count: string | number }>;
  return Object.fromEntries(['pending', 'done', 'failed'].map((status) => [status, Number(rows.find((row) => row.status === status)?.count ?? 0)]));
}

/** Puts a failed (or waiting) delivery back in line, due now. */
export async function requeueDelivery(db: Executor, brandId: string, webhookId: string): Promise<void> {
  const updated = await db('shopify_inbox')
    .where({ brand_id: brandId, webhook_id: webhookId })
    .whereNot({ status: 'done' })
    .update({ status: 'pending', next_attempt_at: db.fn.now() })
    .returning('webhook_id');
  // Counted from RETURNING, which every driver reports (the embedded one's row counts are not relied on).
  if (updated.length === 0) throw new NotFound(`no failed or pending delivery ${webhookId} for brand ${brandId}`);
}

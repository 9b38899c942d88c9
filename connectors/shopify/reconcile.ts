import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { getBrand } from '../../core/brands/brand';
import type { AdminApi } from './admin-api';
import { type BulkOptions, bulkOrdersChangedSince } from './bulk-orders';
import { type GraphqlRefund, countOrders, idFromGid, ordersChangedSince, refundsOf, toWebhookCancellation, toWebhookOrder, toWebhookRefund, wasPaid, withAllLineItems } from './graphql-orders';
import { acceptDelivery, requeueDelivery } from './inbox';
import { processDeliveryNow } from './process-inbox';
import { findBrandShopLink } from './shop-links';
import { subscribeAndRecord } from './subscription-states';
import type { SubscriptionReport } from './webhook-subscriptions';

export interface ReconcileSummary {
  shop: string;
  since: string;
  orders_checked: number;
  /** Conversions recorded now: their orders/paid never came (or never got through). */
  conversions_backfilled: number;
  refunds_backfilled: number;
  /** Paid orders found cancelled whose reward was reversed now: their orders/cancelled never came. */
  cancellations_backfilled: number;
  /** How many orders, refunds and cancellations ended each way (conversion_recorded, duplicate_order, not_attributed, …). */
  orders: Record<string, number>;
  refunds: Record<string, number>;
  cancellations: Record<string, number>;
  failed: Array<{ webhook_id: string; error: string }>;
  /** A custom app's shop-specific subscriptions, re-created where Shopify deleted them; null for the public app (app-level, from shopify.app.toml). */
  webhooks: SubscriptionReport | null;
}

export interface ReconcileOptions {
  since: string;
  api: AdminApi;
  /** Our webhook URL; a custom app's missing subscriptions are re-created there. */
  webhookUri?: string | null;
  /** Read the orders with one bulk operation (large backfills) instead of page by page. */
  bulk?: BulkOptions | null;
  onProgress?: (done: number, total: number | null) => void;
  logger?: Logger;
}

/**
 * Pulls the shop's orders changed since a date and feeds each paid one, its refunds and its
 * cancellation through the inbox exactly like webhook deliveries (orders/paid, refunds/create,
 * orders/cancelled), keyed `reconcile:<topic>:<id>`: whatever was already recorded (by its webhook
 * or an earlier run) is a duplicate and changes nothing.
 */
export async function reconcileShop(db: Knex, brandId: string, options: ReconcileOptions): Promise<ReconcileSummary> {
  await getBrand(db, brandId);
  const summary: ReconcileSummary = {
    shop: options.api.shop,
    since: options.since,
    orders_checked: 0,
    conversions_backfilled: 0,
    refunds_backfilled: 0,
    cancellations_backfilled: 0,
    orders: {},
    refunds: {},
    cancellations: {},
    failed: [],
    webhooks: null,
  };
  const link = await findBrandShopLink(db, brandId);
  if (link?.app_kind === 'custom' && options.webhookUri) {
    // Shopify deletes a shop-specific subscription after repeated failed deliveries.
    summary.webhooks = await subscribeAndRecord(db, link, options.api, options.webhookUri);
  }
  const total = await countOrders(options.api, options.since);
  options.onProgress?.(0, total);
  const feed = (topic: string, id: string, orderId: string, body: Record<string, unknown>) =>
    feedDelivery(db, { brand_id: brandId, shop: options.api.shop, topic, webhook_id: `reconcile:${topic}:${id}`, order_id: orderId, body }, summary, options.logger);

  const pages = explainAccessDenied(options.bulk ? bulkOrdersChangedSince(options.api, options.since, options.bulk) : ordersChangedSince(options.api, options.since));
  for await (const orders of pages) {
    for (const order of orders) {
      summary.orders_checked += 1;
      if (!wasPaid(order)) {
        tally(summary.orders, 'not_paid');
        options.onProgress?.(summary.orders_checked, total);
        continue;
      }
      const orderId = idFromGid(order.id);
      const whole = await withAllLineItems(options.api, order);
      const refunds = await refundsOf(options.api, order);
      const outcome = await feed('orders/paid', orderId, orderId, toWebhookOrder(whole, refunds));
      tally(summary.orders, outcome);
      if (outcome === 'conversion_recorded') summary.conversions_backfilled += 1;
      for (const refund of refunds) {
        const refundOutcome = await feed('refunds/create', refundDeliveryId(refund), orderId, toWebhookRefund(order, refund));
        tally(summary.refunds, refundOutcome);
        if (refundOutcome === 'refund_recorded') summary.refunds_backfilled += 1;
      }
      // After its refunds: a cancellation reverses only what they did not.
      if (order.cancelledAt) {
        const cancelOutcome = await feed('orders/cancelled', orderId, orderId, toWebhookCancellation(order));
        tally(summary.cancellations, cancelOutcome);
        if (cancelOutcome === 'refund_recorded') summary.cancellations_backfilled += 1;
      }
      options.onProgress?.(summary.orders_checked, total);
    }
  }
  return summary;
}

/**
 * A refund's delivery id names how many of its transactions are still pending: once one settles,
 * the refund is fed again (a new id) and what succeeded is counted then, once.
 */
function refundDeliveryId(refund: GraphqlRefund): string {
  const id = idFromGid(refund.id);
  const pending = refund.transactions.nodes.filter((transaction) => !['SUCCESS', 'FAILURE', 'ERROR'].includes(transaction.status)).length;
  return pending > 0 ? `${id}:pending-${pending}` : id;
}

async function feedDelivery(
  db: Knex,
  delivery: { brand_id: string; shop: string; topic: string; webhook_id: string; order_id: string; body: Record<string, unknown> },
  summary: ReconcileSummary,
  logger?: Logger,
): Promise<string> {
  const key = { brand_id: delivery.brand_id, webhook_id: delivery.webhook_id };
  const accepted = await acceptDelivery(db, {
    ...key,
    shop_domain: delivery.shop,
    topic: delivery.topic,
    api_version: null,
    event_id: null,
    triggered_at: null,
    order_id: delivery.order_id,
    body: JSON.stringify(delivery.body),
  });
  if (!accepted) {
    const earlier = await db('shopify_inbox').where(key).first('status');
    if (earlier?.status === 'done') return 'reconciled_before';
    await requeueDelivery(db, delivery.brand_id, delivery.webhook_id);
  }
  const processed = await processDeliveryNow(db, key, logger);
  if (!processed) return 'reconciled_before';
  if (processed.status !== 'done') {
    summary.failed.push({ webhook_id: delivery.webhook_id, error: processed.outcome ?? 'unknown error' });
    return processed.status;
  }
  return processed.outcome ?? 'done';
}

/** Shopify's ACCESS_DENIED names a field; the merchant needs to know which access to ask for. */
async function* explainAccessDenied<T>(pages: AsyncGenerator<T>): AsyncGenerator<T> {
  try {
    yield* pages;
  } catch (error) {
    if (!/access denied/i.test((error as Error).message)) throw error;
    throw new Error(
      `${(error as Error).message} Reading orders needs the read_orders scope and protected customer data access (level 1, and level 2 for Email): request it in the Dev Dashboard (docs/merchants/shopify.md, step 2), then run reconcile again.`,
    );
  }
}

function tally(counts: Record<string, number>, outcome: string): void {
  counts[outcome] = (counts[outcome] ?? 0) + 1;
}

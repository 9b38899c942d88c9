import type { Executor } from '../../core/db/transaction';
import type { AdminApi } from './admin-api';
import { type SubscriptionReport, type TopicSubscription, subscribeWebhooks } from './webhook-subscriptions';

export interface StoredSubscription extends TopicSubscription {
  uri: string;
  checked_at: Date;
  /** What the merchant should do about a refusal; null when subscribed. */
  action: string | null;
}

/** Subscribes a shop's topics and records each one's state on its link, refusals included. */
export async function subscribeAndRecord(db: Executor, link: { brand_id: string; shop_domain: string }, api: AdminApi, uri: string): Promise<SubscriptionReport> {
  const report = await subscribeWebhooks(api, uri);
  await db('shopify_webhook_subscriptions')
    .insert(report.topics.map((state) => ({ brand_id: link.brand_id, shop_domain: link.shop_domain, uri, ...state, checked_at: db.fn.now() })))
    .onConflict(['brand_id', 'shop_domain', 'topic'])
    .merge(['status', 'subscription_id', 'uri', 'error', 'checked_at']);
  return report;
}

export async function storedSubscriptions(db: Executor, brandId: string, shopDomain: string): Promise<StoredSubscription[]> {
  const rows = await db('shopify_webhook_subscriptions')
    .where({ brand_id: brandId, shop_domain: shopDomain })
    .orderBy('topic')
    .select('topic', 'status', 'subscription_id', 'uri', 'error', 'checked_at');
  return rows.map((row) => ({ ...row, action: row.status === 'refused' ? actionFor(row.error ?? '') : null }));
}

/** Shopify's refusals name their cause; each has one fix the merchant can make. */
export function actionFor(error: string): string {
  if (/protected customer data/i.test(error)) {
    return 'Request protected customer data access for the app (Dev Dashboard → the app → API access → Protected customer data: level 1, plus level 2 for Email), then run `referrals shopify reconcile --brand ID --since DATE` to subscribe again and backfill what was missed.';
  }
  if (/access denied|scope|permission/i.test(error)) {
    return 'Grant the app the read_orders scope (reinstall it, or add the scope to the custom app and re-connect), then run `referrals shopify reconcile`.';
  }
  if (/address|uri|url/i.test(error)) {
    return 'Check SHOPIFY_APP_URL (or --app-url): Shopify must reach https://<host>/shopify/webhooks. Then run `referrals shopify reconcile`.';
  }
  return 'Run `referrals shopify reconcile --brand ID --since DATE`, which asks again; if Shopify still refuses, the message above is its reason.';
}

import type { Executor } from '../../core/db/transaction';
import { NotFound } from '../../core/errors';
import type { AdminApi } from './admin-api';
import { STORE_CREDIT_SCOPES } from './reward-store-credit';
import { findBrandShopLink } from './shop-links';
import { type StoredSubscription, storedSubscriptions } from './subscription-states';
import { EXISTING_SUBSCRIPTIONS } from './webhook-subscriptions';

/** A stored subscription, and whether Shopify still lists it (null when not asked). */
export interface SubscriptionStatus extends StoredSubscription {
  live: boolean | null;
}

export interface ShopStatus {
  brand_id: string;
  shop: string;
  app: 'public' | 'custom';
  status: 'installed' | 'uninstalled';
  scopes: string | null;
  /** Where the webhook subscriptions live: the app's deployed configuration, or the shop itself. */
  webhooks: 'app configuration (shopify.app.toml)' | 'shop-specific';
  subscriptions: SubscriptionStatus[];
  /** Why Shopify could not be asked which subscriptions it still has; null when it was (or need not be). */
  live_check_error: string | null;
  /** What to do, one line per problem; empty when nothing needs doing. */
  actions: string[];
}

/**
 * `referrals shopify status`: the brand's shop link and each webhook topic's state, with what to
 * do. For a custom app, `api` (when it can be had) asks Shopify which subscriptions it still has:
 * it deletes one after repeated failed deliveries.
 */
export async function shopStatus(db: Executor, brandId: string, live?: () => Promise<AdminApi>): Promise<ShopStatus> {
  const link = await findBrandShopLink(db, brandId);
  if (!link) throw new NotFound(`brand ${brandId} is not connected to a Shopify shop`);
  const stored = await storedSubscriptions(db, brandId, link.shop_domain);
  let listed: Set<string> | null = null;
  let liveCheckError: string | null = null;
  if (link.app_kind === 'custom' && link.status === 'installed' && live && stored.length > 0) {
    try {
      const data = await (await live()).request<{ webhookSubscriptions: { nodes: Array<{ id: string }> } }>(EXISTING_SUBSCRIPTIONS);
      listed = new Set(data.webhookSubscriptions.nodes.map((node) => node.id));
    } catch (error) {
      liveCheckError = (error as Error).message;
    }
  }
  const subscriptions = stored.map((row) => {
    const gone = listed !== null && row.status === 'subscribed' && !listed.has(row.subscription_id ?? '');
    return {
      ...row,
      live: listed === null || row.status !== 'subscribed' ? null : !gone,
      action: gone ? 'Shopify no longer lists this subscription (it deletes one after repeated failed deliveries): check that the service is reachable, then run `referrals shopify reconcile --brand ID --since DATE` to subscribe again and backfill.' : row.action,
    };
  });
  const actions = subscriptions.filter((row) => row.action).map((row) => `${row.topic}: ${row.error ?? 'missing'} → ${row.action}`);
  const granted = (link.scopes ?? '').split(',').map((scope) => scope.trim());
  if (link.status === 'installed' && link.scopes !== null) {
    if (!granted.includes('write_discounts')) {
      actions.push("The app lacks the write_discounts scope, so referral codes cannot be made Shopify discount codes: open the app from the shop's admin to approve the new scope (or reinstall it); `referrals shopify codes --brand ID` shows the sync.");
    }
    const creditLacks = STORE_CREDIT_SCOPES.filter((scope) => !granted.includes(scope));
    if (creditLacks.length > 0 && (await brandFulfilment(db, brandId)) === 'store_credit') {
      actions.push(
        `The app lacks the ${creditLacks.join(', ')} scope${creditLacks.length > 1 ? 's' : ''}, so rewards cannot be added to advocates' store credit (reward_fulfilment store_credit): open the app from the shop's admin to approve the new scopes (or reinstall it); \`referrals shopify codes --brand ID\` shows the refused rewards.`,
      );
    }
    if (!granted.includes('write_app_proxy')) {
      actions.push("The app lacks the write_app_proxy scope, so the store's referral page (/apps/referrals) is not served: open the app from the shop's admin to approve the new scope (or reinstall it).");
    }
  }
  if (link.status === 'uninstalled') actions.unshift('The app was uninstalled: install it again (or `referrals shopify connect`) to resume.');
  if (link.app_kind === 'custom' && subscriptions.length === 0) {
    actions.push('No webhook subscriptions recorded: run `referrals shopify reconcile --brand ID --since DATE` (with SHOPIFY_APP_URL set) to subscribe.');
  }
  return {
    brand_id: brandId,
    shop: link.shop_domain,
    app: link.app_kind,
    status: link.status,
    scopes: link.scopes,
    webhooks: link.app_kind === 'public' ? 'app configuration (shopify.app.toml)' : 'shop-specific',
    subscriptions,
    live_check_error: liveCheckError,
    actions,
  };
}

/** How the brand hands out approved money: the store credit scopes matter only to a store_credit brand. */
async function brandFulfilment(db: Executor, brandId: string): Promise<string | undefined> {
  const row: { reward_fulfilment: string } | undefined = await db('brands').where({ brand_id: brandId }).first('reward_fulfilment');
  return row?.reward_fulfilment;
}

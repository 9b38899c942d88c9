import type { Executor } from '../../core/db/transaction';
import { NotFound } from '../../core/errors';
import { findBrandShopLink } from './shop-links';
import { type StoredSubscription, storedSubscriptions } from './subscription-states';

export interface ShopStatus {
  brand_id: string;
  shop: string;
  app: 'public' | 'custom';
  status: 'installed' | 'uninstalled';
  scopes: string | null;
  /** Where the webhook subscriptions live: the app's deployed configuration, or the shop itself. */
  webhooks: 'app configuration (shopify.app.toml)' | 'shop-specific';
  subscriptions: StoredSubscription[];
  /** What to do, one line per problem; empty when nothing needs doing. */
  actions: string[];
}

/** `referrals shopify status`: the brand's shop link and each webhook topic's state, with what to do. */
export async function shopStatus(db: Executor, brandId: string): Promise<ShopStatus> {
  const link = await findBrandShopLink(db, brandId);
  if (!link) throw new NotFound(`brand ${brandId} is not connected to a Shopify shop`);
  const subscriptions = await storedSubscriptions(db, brandId, link.shop_domain);
  const actions = subscriptions.filter((row) => row.action).map((row) => `${row.topic}: ${row.error} → ${row.action}`);
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
    actions,
  };
}

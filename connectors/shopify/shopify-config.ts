import { ApiVersion } from '@shopify/shopify-api';
import { PLANS, type Plan } from '../../core/brands/brand';

/** The Admin API version every call and webhook subscription uses. */
export const SHOPIFY_API_VERSION = ApiVersion.October26;

/** Topics subscribed through the GraphQL Admin API at install (privacy topics are set in the app's settings). */
export const SUBSCRIBED_TOPICS = ['ORDERS_PAID', 'REFUNDS_CREATE', 'APP_UNINSTALLED'] as const;

export const AUTH_PATH = '/shopify/auth';
export const AUTH_CALLBACK_PATH = '/shopify/auth/callback';
export const WEBHOOK_PATH = '/shopify/webhooks';

/** The public app's settings (Partner Dashboard → the app → Client credentials). */
export interface ShopifyAppConfig {
  apiKey: string;
  apiSecret: string;
  /** e.g. https://referrals.example.com, with no trailing slash. */
  appUrl: string;
  scopes: string[];
  /** The plan a brand created by an install starts on. */
  defaultPlan: Plan;
}

/**
 * SHOPIFY_API_KEY, SHOPIFY_API_SECRET, SHOPIFY_APP_URL (or HOST), SHOPIFY_SCOPES, SHOPIFY_DEFAULT_PLAN.
 * null when the public app is not configured (custom-app shops still work).
 */
export function loadShopifyConfig(env: NodeJS.ProcessEnv = process.env): ShopifyAppConfig | null {
  const apiKey = env.SHOPIFY_API_KEY?.trim();
  const apiSecret = env.SHOPIFY_API_SECRET?.trim();
  const appUrl = (env.SHOPIFY_APP_URL || env.HOST)?.trim();
  if (!apiKey || !apiSecret || !appUrl) return null;
  if (!/^https?:\/\/[^/\s]+$/.test(appUrl.replace(/\/+$/, ''))) {
    throw new Error(`SHOPIFY_APP_URL must be the app's origin, like https://referrals.example.com (got "${appUrl}")`);
  }
  const plan = (env.SHOPIFY_DEFAULT_PLAN?.trim() || 'starter') as Plan;
  if (!PLANS.includes(plan)) throw new Error(`SHOPIFY_DEFAULT_PLAN must be one of ${PLANS.join(', ')} (got "${plan}")`);
  return {
    apiKey,
    apiSecret,
    appUrl: appUrl.replace(/\/+$/, ''),
    scopes: (env.SHOPIFY_SCOPES || 'read_orders')
      .split(',')
      .map((scope) => scope.trim())
      .filter(Boolean),
    defaultPlan: plan,
  };
}

/** Where Shopify delivers webhooks for this deployment. */
export function webhookUrl(appUrl: string): string {
  return `${appUrl.replace(/\/+$/, '')}${WEBHOOK_PATH}`;
}

const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

/** `X.myshopify.com`, lower-cased; null when it is not a shop's own domain. */
export function normalizeShopDomain(shop: string | undefined | null): string | null {
  const domain = (shop ?? '').trim().toLowerCase();
  return SHOP_DOMAIN.test(domain) ? domain : null;
}

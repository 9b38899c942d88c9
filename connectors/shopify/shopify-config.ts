import { ApiVersion } from '@shopify/shopify-api';
import { z } from 'zod';
import { PLANS } from '../../core/brands/brand';
import { parseEnvSettings } from '../../server/http';

/** The Admin API version every call and webhook subscription uses. */
export const SHOPIFY_API_VERSION = ApiVersion.October26;

export const AUTH_PATH = '/shopify/auth';
export const AUTH_CALLBACK_PATH = '/shopify/auth/callback';
export const WEBHOOK_PATH = '/shopify/webhooks';
/** The merchant's dashboard, which the app opens inside the Shopify admin (embedded). */
export const DASHBOARD_PATH = '/dashboard';

const ORIGIN = /^https?:\/\/[^/\s]+$/;

/** The public app's settings (Dev Dashboard → the app → Settings: Client ID and secret). */
const publicAppSchema = z.object({
  apiKey: z.string(),
  apiSecret: z.string(),
  /** e.g. https://referrals.example.com, with no trailing slash. */
  appUrl: z.string().regex(ORIGIN, {
    error: (issue) => `SHOPIFY_APP_URL must be the app's origin, like https://referrals.example.com (got "${String(issue.input)}")`,
  }),
  scopes: z.array(z.string()),
  /** The plan a brand created by an install starts on. */
  defaultPlan: z.enum(PLANS, { error: (issue) => `SHOPIFY_DEFAULT_PLAN must be one of ${PLANS.join(', ')} (got "${String(issue.input)}")` }),
});

export type ShopifyAppConfig = z.infer<typeof publicAppSchema>;

/** An environment variable as a setting: trimmed, and absent when empty. */
const setting = z.string().trim().optional().transform((value) => value || undefined);

/**
 * SHOPIFY_API_KEY, SHOPIFY_API_SECRET, SHOPIFY_APP_URL (or HOST), SHOPIFY_SCOPES, SHOPIFY_DEFAULT_PLAN.
 * `app` is null when the public app is not configured (custom-app shops still work).
 */
export const shopifySettingsSchema = z
  .object({
    SHOPIFY_API_KEY: setting,
    SHOPIFY_API_SECRET: setting,
    SHOPIFY_APP_URL: setting,
    HOST: setting,
    SHOPIFY_SCOPES: setting,
    SHOPIFY_DEFAULT_PLAN: setting,
  })
  .transform((env, ctx) => {
    const appUrl = (env.SHOPIFY_APP_URL ?? env.HOST)?.replace(/\/+$/, '');
    if (!env.SHOPIFY_API_KEY || !env.SHOPIFY_API_SECRET || !appUrl) {
      // `shopify connect` still subscribes a custom app's webhooks to SHOPIFY_APP_URL.
      return { app: null, webhookOrigin: env.SHOPIFY_APP_URL };
    }
    const app = publicAppSchema.safeParse({
      apiKey: env.SHOPIFY_API_KEY,
      apiSecret: env.SHOPIFY_API_SECRET,
      appUrl,
      scopes: (env.SHOPIFY_SCOPES ?? 'read_orders,write_discounts,write_app_proxy,write_store_credit_account_transactions,read_store_credit_accounts,read_customers').split(',').map((scope) => scope.trim()).filter(Boolean),
      defaultPlan: env.SHOPIFY_DEFAULT_PLAN ?? 'starter',
    });
    if (!app.success) {
      for (const issue of app.error.issues) ctx.addIssue({ code: 'custom', message: issue.message });
      return z.NEVER;
    }
    return { app: app.data, webhookOrigin: appUrl };
  });

export type ShopifySettings = z.infer<typeof shopifySettingsSchema>;

/** The connector's settings, read once when a process starts; a malformed value throws. */
export function loadShopifySettings(env: NodeJS.ProcessEnv = process.env): ShopifySettings {
  return parseEnvSettings(shopifySettingsSchema, env);
}

/** The public app's settings alone; null when it is not configured. */
export function loadShopifyConfig(env: NodeJS.ProcessEnv = process.env): ShopifyAppConfig | null {
  return loadShopifySettings(env).app;
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

import { HttpResponseError, type Session, ShopifyError } from '@shopify/shopify-api';
import { inTransaction } from '../../core/db/transaction';
import { type Ctx, HttpError } from '../../server/http';
import { adminApiFor } from './admin-api';
import { installPage } from './install-page';
import { installShop } from './install-shop';
import { AUTH_CALLBACK_PATH, type ShopifyAppConfig, normalizeShopDomain, webhookUrl } from './shopify-config';
import { publicShopifyApp } from './shopify-library';
import { type SubscriptionReport, subscribeWebhooks } from './webhook-subscriptions';

/** The routes of an unconfigured public app answer 503 (custom-app shops need no install). */
function requireAppConfig(config: ShopifyAppConfig | null): ShopifyAppConfig {
  if (!config) throw new HttpError(503, 'the Shopify app is not configured: set SHOPIFY_API_KEY, SHOPIFY_API_SECRET and SHOPIFY_APP_URL');
  return config;
}

/** GET /shopify/auth?shop=x.myshopify.com → Shopify's consent screen (OAuth authorization-code grant). */
export async function beginInstall(ctx: Ctx, app: ShopifyAppConfig | null): Promise<void> {
  const appConfig = requireAppConfig(app);
  const shop = normalizeShopDomain(typeof ctx.query.shop === 'string' ? ctx.query.shop : undefined);
  if (!shop) throw new HttpError(400, 'shop must be a shop domain like example.myshopify.com');
  await publicShopifyApp(appConfig).auth.begin({
    shop,
    callbackPath: AUTH_CALLBACK_PATH,
    isOnline: false,
    rawRequest: ctx.req,
    rawResponse: ctx.res,
  });
  ctx.respond = false; // the library wrote the redirect (and its state cookie) itself
  ctx.status = ctx.res.statusCode; // for the request log
}

/**
 * GET /shopify/auth/callback: exchanges the code for an expiring offline token, creates (or
 * re-links) the shop's brand, subscribes the webhooks and shows the brand ID and first key.
 */
export async function completeInstall(ctx: Ctx, app: ShopifyAppConfig | null): Promise<void> {
  const appConfig = requireAppConfig(app);
  const shopify = publicShopifyApp(appConfig);
  const { db, config, logger } = ctx.app.context.deps;
  let session: Session;
  try {
    ({ session } = await shopify.auth.callback({ rawRequest: ctx.req, rawResponse: ctx.res, expiring: true }));
  } catch (error) {
    if (error instanceof HttpResponseError) throw new HttpError(502, `Shopify refused the token exchange: ${error.message}`);
    if (error instanceof ShopifyError) throw new HttpError(400, `the install could not be completed (${error.message}); start again from the Shopify admin`);
    throw error;
  }
  const installed = await inTransaction(db, (trx) =>
    installShop(trx, { session, plan: appConfig.defaultPlan, encryptionSecret: config.keyEncryptionSecret }),
  );
  let webhooks: SubscriptionReport | null = null;
  let webhookError: string | null = null;
  try {
    webhooks = await subscribeWebhooks(adminApiFor(shopify, session), webhookUrl(appConfig.appUrl));
  } catch (error) {
    webhookError = (error as Error).message;
    logger.warn({ err: error, shop: session.shop }, 'shopify webhook subscriptions failed');
  }
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'html';
  ctx.body = installPage({
    shop: session.shop,
    brandId: installed.brand.brand_id,
    plan: installed.brand.plan,
    apiKey: installed.api_key,
    webhooks,
    webhookError,
  });
}

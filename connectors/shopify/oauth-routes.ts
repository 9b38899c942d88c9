import { HttpResponseError, InvalidHmacError, type Session, type Shopify, ShopifyError } from '@shopify/shopify-api';
import { inTransaction } from '../../core/db/transaction';
import { type Ctx, HttpError } from '../../server/http';
import { adminApiFor } from './admin-api';
import { installPage } from './install-page';
import { installShop } from './install-shop';
import { AUTH_CALLBACK_PATH, DASHBOARD_PATH, type ShopifyAppConfig, normalizeShopDomain } from './shopify-config';
import { shopCurrency } from './shop-currency';
import { findShopLink } from './shop-links';
import { publicShopifyApp } from './shopify-library';

/** The routes of an unconfigured public app answer 503 (custom-app shops need no install). */
function requireAppConfig(config: ShopifyAppConfig | null): ShopifyAppConfig {
  if (!config) throw new HttpError(503, 'the Shopify app is not configured: set SHOPIFY_API_KEY, SHOPIFY_API_SECRET and SHOPIFY_APP_URL');
  return config;
}

/**
 * The install link must come from Shopify: its query (shop, timestamp, …) signed with our app's
 * secret, HMAC-SHA256 hex, and recent (the library allows 90 s of clock difference).
 */
async function verifyInstallRequest(shopify: Shopify, ctx: Ctx): Promise<void> {
  const query = new URLSearchParams(ctx.querystring);
  if (!query.get('hmac')) throw new HttpError(401, 'the install request has no hmac: open the install link from the Shopify admin or the Dev Dashboard');
  let valid: boolean;
  try {
    valid = await shopify.utils.validateHmac(query);
  } catch (error) {
    if (!(error instanceof InvalidHmacError)) throw error;
    throw new HttpError(401, `the install request's timestamp is missing or too old (${error.message}): start the install again from Shopify`);
  }
  if (!valid) throw new HttpError(401, 'the install request\'s hmac does not match its query: it was not signed by Shopify with this app\'s secret');
}

/** GET /shopify/auth?shop=x.myshopify.com&timestamp=…&hmac=… → Shopify's consent screen (OAuth authorization-code grant). */
export async function beginInstall(ctx: Ctx, app: ShopifyAppConfig | null): Promise<void> {
  const appConfig = requireAppConfig(app);
  const shop = normalizeShopDomain(typeof ctx.query.shop === 'string' ? ctx.query.shop : undefined);
  if (!shop) throw new HttpError(400, 'shop must be a shop domain like example.myshopify.com');
  const shopify = publicShopifyApp(appConfig);
  await verifyInstallRequest(shopify, ctx);
  if (ctx.query.embedded === '1') return openEmbedded(ctx, shop);
  await shopify.auth.begin({
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
 * The app opened from the Shopify admin (application_url, framed, with `embedded=1` and a session
 * token in `id_token`): an installed shop goes to the dashboard, which verifies the token itself.
 * The consent screen cannot run inside the admin's frame, so a shop not installed here is told to
 * install from the top-level install link instead.
 */
async function openEmbedded(ctx: Ctx, shop: string): Promise<void> {
  const link = await findShopLink(ctx.app.context.deps.db, shop);
  if (link?.status !== 'installed' || link.app_kind !== 'public') {
    throw new HttpError(403, `${shop} has not installed this app here yet: install it from its install link (outside the admin's frame), then open it again`, {}, 'forbidden');
  }
  ctx.redirect(`${DASHBOARD_PATH}?${ctx.querystring}`);
}

/**
 * GET /shopify/auth/callback: exchanges the code for an expiring offline token, creates (or
 * re-links) the shop's brand (in the shop's currency), subscribes the webhooks and shows the brand ID and first key.
 */
export async function completeInstall(ctx: Ctx, app: ShopifyAppConfig | null): Promise<void> {
  const appConfig = requireAppConfig(app);
  const shopify = publicShopifyApp(appConfig);
  const { db, config } = ctx.app.context.deps;
  let session: Session;
  try {
    ({ session } = await shopify.auth.callback({ rawRequest: ctx.req, rawResponse: ctx.res, expiring: true }));
  } catch (error) {
    if (error instanceof HttpResponseError) throw new HttpError(502, `Shopify refused the token exchange: ${error.message}`);
    if (error instanceof ShopifyError) throw new HttpError(400, `the install could not be completed (${error.message}); start again from the Shopify admin`);
    throw error;
  }
  // A new shop's brand sells in the shop's currency; asked before the transaction (a network call).
  let currency: string;
  try {
    currency = await shopCurrency(adminApiFor(shopify, session));
  } catch (error) {
    throw new HttpError(502, `Shopify did not tell the shop's currency (${(error as Error).message}); start the install again`);
  }
  const installed = await inTransaction(db, (trx) =>
    installShop(trx, { session, plan: appConfig.defaultPlan, encryptionSecret: config.keyEncryptionSecret, currency }),
  );
  // No shop-specific subscriptions: the public app's are app-level, deployed from shopify.app.toml.
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'html';
  ctx.body = installPage({
    shop: session.shop,
    brandId: installed.brand.brand_id,
    plan: installed.brand.plan,
    apiKey: installed.api_key,
  });
}

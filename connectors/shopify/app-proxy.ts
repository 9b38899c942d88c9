import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidHmacError } from '@shopify/shopify-api';
import { z } from 'zod';
import { getAdvocate } from '../../core/advocates/advocates';
import { joinByEmail } from '../../core/advocates/join-advocate';
import { shareLink } from '../../core/advocates/share-link';
import { type Brand, findBrand } from '../../core/brands/brand';
import { lockKey } from '../../core/db/advisory-lock';
import { inTransaction } from '../../core/db/transaction';
import { type Ctx, HttpError, mailbox, typedName } from '../../server/http';
import { advocatePage, checkEmailPage, inactivePage, joinPage, signInPage } from './app-proxy-page';
import { type ShopifyAppConfig, normalizeShopDomain } from './shopify-config';
import { findShopLink } from './shop-links';
import { publicShopifyApp } from './shopify-library';
import { type StorefrontCustomer, advocateFigures, mapCustomer, mappedAdvocateId } from './storefront-customers';

/**
 * The app proxy (shopify.app.toml `[app_proxy]`): Shopify forwards the store's /apps/referrals to
 * /shopify/proxy, adding shop, logged_in_customer_id, path_prefix and timestamp to the query and
 * signing it (`signature`). The page is the advocate's own, in the store's theme (docs/merchants/storefront.md).
 */
export const PROXY_PATH = '/shopify/proxy';
export const PROXY_JOIN_PATH = `${PROXY_PATH}/join`;
/** Where the store shows the page when the merchant keeps the app's default (prefix apps, subpath referrals). */
export const STOREFRONT_PROXY_PATH = '/apps/referrals';

/** What a verified proxy request says: the shop, its brand, and the signed-in customer if any. */
interface ProxyRequest {
  shop: string;
  brand: Brand;
  /** Shopify's id of the signed-in customer; null for a visitor who is not signed in. */
  customerId: string | null;
  /** The page's path on the store (the merchant may change the proxy's prefix and subpath). */
  proxyPath: string;
}

function requireAppConfig(app: ShopifyAppConfig | null): ShopifyAppConfig {
  if (!app) throw new HttpError(503, 'the Shopify app is not configured: set SHOPIFY_API_KEY, SHOPIFY_API_SECRET and SHOPIFY_APP_URL');
  return app;
}

const unsigned = () => new HttpError(401, 'this page must be opened on the store (its app proxy request was not signed by Shopify)');

/**
 * Refuses (401) any request whose `signature` is missing, does not match its query under the
 * app's secret, or is older than the library's 90 s tolerance; the library checks it
 * (`validateHmac`, signator `appProxy`). Then the shop must be linked to an active brand (404).
 */
async function verifyProxyRequest(ctx: Ctx, app: ShopifyAppConfig | null): Promise<ProxyRequest> {
  const shopify = publicShopifyApp(requireAppConfig(app));
  const query = new URLSearchParams(ctx.querystring);
  if (!query.get('signature')) throw unsigned();
  let valid: boolean;
  try {
    valid = await shopify.utils.validateHmac(query, { signator: 'appProxy' });
  } catch (error) {
    if (!(error instanceof InvalidHmacError)) throw error;
    throw unsigned();
  }
  if (!valid) throw unsigned();
  const shop = normalizeShopDomain(query.get('shop'));
  if (!shop) throw new HttpError(404, 'no referral program on this store');
  const link = await findShopLink(ctx.app.context.deps.db, shop);
  const brand = link && link.status === 'installed' ? await findBrand(ctx.app.context.deps.db, link.brand_id) : null;
  if (!brand || brand.status !== 'active') throw new HttpError(404, 'no referral program on this store');
  const customer = query.get('logged_in_customer_id') ?? '';
  const prefix = query.get('path_prefix') ?? '';
  return {
    shop,
    brand,
    customerId: /^\d{1,20}$/.test(customer) ? customer : null,
    proxyPath: /^\/[A-Za-z0-9_/-]{1,100}$/.test(prefix) ? prefix.replace(/\/+$/, '') : STOREFRONT_PROXY_PATH,
  };
}

function answerLiquid(ctx: Ctx, liquid: string, status = 200): void {
  ctx.status = status;
  ctx.type = 'application/liquid';
  // The page is one customer's: no shared cache may keep it.
  ctx.set('Cache-Control', 'no-store');
  ctx.body = liquid;
}

const FORM_TOKEN_LIFETIME_SECONDS = 24 * 60 * 60;

/**
 * The join form's token: the customer it was shown to, signed with the app's secret. The proxy
 * signs whatever the signed-in customer's browser sends, so without it another site could post a
 * join in their name (cross-site request forgery) and tie them to an address of its choosing.
 */
export function formToken(secret: string, shop: string, customerId: string, issuedAt = Math.floor(Date.now() / 1000)): string {
  const mac = createHmac('sha256', secret).update(`referrals-join|${shop}|${customerId}|${issuedAt}`).digest('base64url');
  return `${issuedAt}.${mac}`;
}

function formTokenValid(secret: string, shop: string, customerId: string, token: string): boolean {
  const [issued, mac] = token.split('.');
  const issuedAt = Number(issued);
  if (!Number.isInteger(issuedAt) || !mac) return false;
  const age = Math.floor(Date.now() / 1000) - issuedAt;
  if (age < -60 || age > FORM_TOKEN_LIFETIME_SECONDS) return false;
  const expected = Buffer.from(formToken(secret, shop, customerId, issuedAt));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** What the join form posts (the email and first name come from the theme's Liquid for the signed-in customer). */
const proxyJoinSchema = z.object({
  email: mailbox(),
  first_name: typedName('first_name'),
  consent: z.literal('yes', { error: 'must be ticked: the customer agrees to join the referral program and get its emails' }),
});

/** The first problem of the form, naming its field. */
function describeFormError(error: z.ZodError): string {
  const issue = error.issues[0];
  const field = issue?.path.map(String).join('.') || 'form';
  const message = issue?.message ?? 'is invalid';
  return message.startsWith(field) ? message : `${field} ${message}`;
}

async function customerPage(ctx: Ctx, request: ProxyRequest, customer: StorefrontCustomer, secret: string): Promise<string> {
  const db = ctx.app.context.deps.db;
  const advocateId = await mappedAdvocateId(db, customer);
  if (advocateId === null) return joinPage(request.proxyPath, formToken(secret, request.shop, customer.customer_id));
  const advocate = await getAdvocate(db, request.brand.brand_id, advocateId);
  if (advocate.status !== 'active') return inactivePage();
  const code = advocate.referral_codes[0]!;
  return advocatePage({
    first_name: advocate.first_name,
    referral_code: code,
    share_link: shareLink(request.brand, code),
    currency: request.brand.currency,
    figures: await advocateFigures(db, request.brand, advocateId),
  });
}

function customerOf(request: ProxyRequest): StorefrontCustomer | null {
  return request.customerId === null ? null : { brand_id: request.brand.brand_id, shop_domain: request.shop, customer_id: request.customerId };
}

/** GET /shopify/proxy (the store's /apps/referrals): sign in, join, or the advocate's own figures. */
export async function showProxyPage(ctx: Ctx, app: ShopifyAppConfig | null): Promise<void> {
  const request = await verifyProxyRequest(ctx, app);
  const customer = customerOf(request);
  if (!customer) return answerLiquid(ctx, signInPage(request.proxyPath));
  answerLiquid(ctx, await customerPage(ctx, request, customer, app!.apiSecret));
}

/**
 * POST /shopify/proxy/join (the store's /apps/referrals/join, signed again by Shopify): the
 * signed-in customer joins. The address came from the browser (the app cannot read the customer's
 * own), so it is joined as a storefront page's is (core joinByEmail): a new address becomes their
 * advocate, with the welcome email, mapped to the customer in the same transaction, and the answer
 * is their page; an address that had already joined is never mapped nor shown (its code goes to it
 * by email), whether its advocate is active or not.
 */
export async function joinFromProxy(ctx: Ctx, app: ShopifyAppConfig | null): Promise<void> {
  const request = await verifyProxyRequest(ctx, app);
  const customer = customerOf(request);
  if (!customer) throw new HttpError(401, 'sign in to the store to join its referral program (the request names no signed-in customer)');
  const secret = app!.apiSecret;
  const form = new URLSearchParams((ctx.state.rawBody as Buffer | undefined)?.toString('utf8') ?? '');
  if (!formTokenValid(secret, request.shop, customer.customer_id, form.get('form_token') ?? '')) {
    throw new HttpError(403, 'the join form has expired or was not sent from this store: open the referral page again', {}, 'csrf_rejected');
  }
  const parsed = proxyJoinSchema.safeParse(Object.fromEntries(form));
  if (!parsed.success) {
    return answerLiquid(ctx, joinPage(request.proxyPath, formToken(secret, request.shop, customer.customer_id), describeFormError(parsed.error)), 400);
  }
  const { email, first_name } = parsed.data;
  const mapped = await inTransaction(ctx.app.context.deps.db, async (trx) => {
    await lockKey(trx, `shopify-proxy-customer:${request.brand.brand_id}:${request.shop}:${customer.customer_id}`);
    if ((await mappedAdvocateId(trx, customer)) !== null) return true;
    const { created } = await joinByEmail(trx, request.brand, { email, first_name });
    if (created) await mapCustomer(trx, customer, created.advocate_id);
    return created !== null;
  });
  if (!mapped) return answerLiquid(ctx, checkEmailPage(email));
  answerLiquid(ctx, await customerPage(ctx, request, customer, secret));
}

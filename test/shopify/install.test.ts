import { adminApiFor, adminApiForBrand } from '../../connectors/shopify/admin-api';
import { refreshExpiringSessions } from '../../connectors/shopify/refresh-sessions';
import { KnexSessionStorage } from '../../connectors/shopify/session-storage';
import { publicShopifyApp } from '../../connectors/shopify/shopify-library';
import { loadShopifyConfig } from '../../connectors/shopify/shopify-config';
import { findBrand } from '../../core/brands/brand';
import { findKeyOwner } from '../../core/brands/api-keys';
import { shopifySessionToken } from '../helpers/shopify-session-token';
import { TEST_SECRET } from '../helpers/test-app';
import { BROWSER_USER_AGENT, SHOPIFY_API_KEY, SHOPIFY_API_SECRET, SHOPIFY_APP_URL, installApp, signedCallbackQuery, signedInstallQuery, uniqueShop, setUpShopifyTests } from './shopify-test-kit';

const context = setUpShopifyTests();

describe('Shopify app install (OAuth authorization-code grant)', () => {
  it('GET /shopify/auth redirects to the shop\'s consent screen with our client id, scopes and callback', async () => {
    const shop = uniqueShop();
    const response = await context.app.http.get(`/shopify/auth?${signedInstallQuery(shop)}`).set('User-Agent', BROWSER_USER_AGENT);
    expect(response.status).toBe(302);
    const location = new URL(response.headers.location!);
    expect(location.origin).toBe(`https://${shop}`);
    expect(location.pathname).toBe('/admin/oauth/authorize');
    expect(location.searchParams.get('client_id')).toBe(SHOPIFY_API_KEY);
    expect(location.searchParams.get('scope')).toBe('read_orders,write_discounts');
    expect(location.searchParams.get('redirect_uri')).toBe(`${SHOPIFY_APP_URL}/shopify/auth/callback`);
    expect(location.searchParams.get('state')).toMatch(/\w{10,}/);
    expect(String(response.headers['set-cookie'])).toContain('shopify_app_state=');
  });

  it('opened inside the admin (embedded=1) for an installed shop, sends the signed request on to the dashboard, which signs in by its session token', async () => {
    const installed = await installApp(context.app, context.fake);
    const idToken = shopifySessionToken({ shop: installed.shop, apiKey: SHOPIFY_API_KEY, apiSecret: SHOPIFY_API_SECRET });
    const query = signedInstallQuery(installed.shop, { extra: { embedded: '1', id_token: idToken } });
    const opened = await context.app.http.get(`/shopify/auth?${query}`);
    expect(opened.status).toBe(302);
    expect(opened.headers.location).toBe(`/dashboard?${query}`);
    const dashboard = await context.app.http.get(opened.headers.location!);
    expect(dashboard.status).toBe(200);
    expect(dashboard.text).toContain(`Signed in through ${installed.shop}`);
    expect(dashboard.headers['content-security-policy']).toContain(`frame-ancestors https://${installed.shop} https://admin.shopify.com`);
  });

  it('opened inside the admin for a shop not installed here, refuses with 403 instead of running the consent screen in a frame', async () => {
    const shop = uniqueShop();
    const opened = await context.app.http.get(`/shopify/auth?${signedInstallQuery(shop, { extra: { embedded: '1' } })}`);
    expect(opened.status).toBe(403);
    expect(opened.body.error).toContain(`${shop} has not installed this app here yet`);
    const forged = await context.app.http.get(`/shopify/auth?${signedInstallQuery(shop, { extra: { embedded: '1' }, secret: 'wrong' })}`);
    expect(forged.status).toBe(401);
  });

  it('install → a brand exists for the shop, and the landing page shows its ID and, once, its first API key', async () => {
    const installed = await installApp(context.app, context.fake);
    const brand = await findBrand(context.app.db, installed.brandId);
    expect(brand).toMatchObject({ name: installed.shop, plan: 'starter', status: 'active' });
    expect(installed.apiKey).toMatch(/^rk_/);
    expect(await findKeyOwner(context.app.db, installed.apiKey!)).toMatchObject({ brand_id: installed.brandId, revoked: false });
    expect(installed.page).toContain(installed.brandId);

    // The key works on the REST API at once.
    const conversion = await context.app.http
      .post('/api/v1/track/conversion')
      .set({ 'X-API-Key': installed.apiKey!, 'X-Brand-ID': installed.brandId })
      .send({ email: 'bob@example.com', order_id: 'x-1', order_value: 10 });
    expect(conversion.status).toBe(200);
  });

  it('asks for an expiring offline token and stores it (and its refresh token) encrypted at rest', async () => {
    const installed = await installApp(context.app, context.fake);
    const exchange = context.fake.tokenCalls(installed.shop)[0]!;
    expect(exchange.body).toMatchObject({ client_id: SHOPIFY_API_KEY, expiring: '1' });

    const row = await context.app.db('shopify_sessions').where({ brand_id: installed.brandId }).first();
    const tokens = context.fake.tokens.get(installed.shop)!;
    expect(row).toMatchObject({ session_id: `offline_${installed.shop}`, shop_domain: installed.shop, is_online: false });
    expect(JSON.stringify(row)).not.toContain(tokens.accessToken);
    expect(JSON.stringify(row)).not.toContain(tokens.refreshToken);
    expect(new Date(row.expires_at).getTime()).toBeGreaterThan(Date.now() + 3000_000);
    expect(row.refresh_token_expires_at).not.toBeNull();

    const session = await new KnexSessionStorage(context.app.db, TEST_SECRET).loadSession(`offline_${installed.shop}`);
    expect(session).toMatchObject({ shop: installed.shop, isOnline: false, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken });
  });

  it('creates no shop-specific webhook subscription: the public app\'s are app-level, from shopify.app.toml', async () => {
    const installed = await installApp(context.app, context.fake);
    expect(context.fake.graphqlCalls(installed.shop, 'CreateWebhookSubscription')).toEqual([]);
    expect(context.fake.graphqlCalls(installed.shop, 'ExistingWebhookSubscriptions')).toEqual([]);
    // The page speaks to the merchant (issue 41): nothing to set up for orders, where to go next, and no CLI command.
    expect(installed.page).toContain('reach the program by themselves: there is nothing to set up for them');
    expect(installed.page).not.toMatch(/referrals (key|shopify|brand)|shopify\.app\.toml/);
  });

  it('a reinstall re-links the existing brand (active again) and shows no new key', async () => {
    const first = await installApp(context.app, context.fake);
    await context.app.db('brands').where({ brand_id: first.brandId }).update({ status: 'uninstalled' });
    const again = await installApp(context.app, context.fake, first.shop);
    expect(again.brandId).toBe(first.brandId);
    expect(again.apiKey).toBeNull();
    expect(again.page).toContain('installed before');
    expect((await findBrand(context.app.db, first.brandId))!.status).toBe('active');
    expect(Number((await context.app.db('brands').where({ name: first.shop }).count({ n: '*' }))[0]!.n)).toBe(1);
    expect(context.fake.subscriptions.get(first.shop) ?? []).toEqual([]);
  });

  it('refreshes the expiring token before it expires, and stores the new one', async () => {
    const installed = await installApp(context.app, context.fake);
    const original = context.fake.tokens.get(installed.shop)!;
    // Four minutes left: inside the refresh margin.
    await context.app.db('shopify_sessions').where({ brand_id: installed.brandId }).update({ expires_at: new Date(Date.now() + 240_000) });
    const api = await adminApiForBrand(context.app.db, installed.brandId, { encryptionSecret: TEST_SECRET, appConfig: loadShopifyConfig() });
    const refresh = context.fake.tokenCalls(installed.shop).at(-1)!;
    expect(refresh.body).toMatchObject({ grant_type: 'refresh_token', refresh_token: original.refreshToken });
    const renewed = context.fake.tokens.get(installed.shop)!;
    expect(renewed.accessToken).not.toBe(original.accessToken);
    const session = await new KnexSessionStorage(context.app.db, TEST_SECRET).loadSession(`offline_${installed.shop}`);
    expect(session!.accessToken).toBe(renewed.accessToken);
    expect(session!.expires!.getTime()).toBeGreaterThan(Date.now() + 3000_000);
    // And the fresh token is the one the API calls carry.
    await api.request('#graphql\n query ExistingWebhookSubscriptions { webhookSubscriptions(first: 100) { nodes { id topic uri } } }');
    expect(context.fake.graphqlCalls(installed.shop, 'ExistingWebhookSubscriptions').at(-1)!.headers['x-shopify-access-token']).toBe(renewed.accessToken);
  });

  it('renews, in the background, sessions whose refresh token expires within a week (and only those)', async () => {
    const due = await installApp(context.app, context.fake);
    const fresh = await installApp(context.app, context.fake);
    await context.app.db('shopify_sessions').where({ brand_id: due.brandId }).update({ refresh_token_expires_at: new Date(Date.now() + 2 * 86400_000) });
    const dueToken = context.fake.tokens.get(due.shop)!.accessToken;
    const freshToken = context.fake.tokens.get(fresh.shop)!.accessToken;
    await refreshExpiringSessions(context.app.db, loadShopifyConfig()!, TEST_SECRET);
    expect(context.fake.tokens.get(due.shop)!.accessToken).not.toBe(dueToken);
    expect(context.fake.tokens.get(fresh.shop)!.accessToken).toBe(freshToken);
    const row = await context.app.db('shopify_sessions').where({ brand_id: due.brandId }).first();
    expect(new Date(row.refresh_token_expires_at).getTime()).toBeGreaterThan(Date.now() + 80 * 86400_000);
  });

  it('swaps a legacy non-expiring token for an expiring one before using it', async () => {
    const installed = await installApp(context.app, context.fake);
    await context.app.db('shopify_sessions').where({ brand_id: installed.brandId }).update({ expires_at: null, refresh_token_encrypted: null, refresh_token_expires_at: null });
    await adminApiForBrand(context.app.db, installed.brandId, { encryptionSecret: TEST_SECRET, appConfig: loadShopifyConfig() });
    expect(context.fake.tokenCalls(installed.shop).at(-1)!.body).toMatchObject({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      expiring: '1',
    });
    const row = await context.app.db('shopify_sessions').where({ brand_id: installed.brandId }).first();
    expect(row.expires_at).not.toBeNull();
    expect(row.refresh_token_encrypted).not.toBeNull();
  });

  it('refuses an install request without an hmac (401) and redirects nowhere', async () => {
    const shop = uniqueShop();
    const response = await context.app.http.get(`/shopify/auth?shop=${shop}&timestamp=${Math.floor(Date.now() / 1000)}`).set('User-Agent', BROWSER_USER_AGENT);
    expect(response.status).toBe(401);
    expect(response.body.error).toMatch(/install request has no hmac/);
    expect(response.headers.location).toBeUndefined();
  });

  it('refuses an install request signed with another secret, or with its shop changed after signing (401)', async () => {
    const shop = uniqueShop();
    const forged = await context.app.http.get(`/shopify/auth?${signedInstallQuery(shop, { secret: 'not-the-app-secret' })}`).set('User-Agent', BROWSER_USER_AGENT);
    expect(forged.status).toBe(401);
    expect(forged.body.error).toMatch(/hmac does not match/);

    const tampered = signedInstallQuery(shop).replace(`shop=${shop}`, `shop=${uniqueShop()}`);
    const swapped = await context.app.http.get(`/shopify/auth?${tampered}`).set('User-Agent', BROWSER_USER_AGENT);
    expect(swapped.status).toBe(401);
    expect(swapped.headers.location).toBeUndefined();
  });

  it('refuses a correctly signed install request that is ten minutes old (401)', async () => {
    const stale = signedInstallQuery(uniqueShop(), { timestamp: Math.floor(Date.now() / 1000) - 600 });
    const response = await context.app.http.get(`/shopify/auth?${stale}`).set('User-Agent', BROWSER_USER_AGENT);
    expect(response.status).toBe(401);
    expect(response.body.error).toMatch(/timestamp is missing or too old/);
  });

  it('refuses a shop that is not a myshopify.com domain (400) and a bot (410)', async () => {
    const bad = await context.app.http.get('/shopify/auth?shop=evil.example.com').set('User-Agent', BROWSER_USER_AGENT);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/shop must be a shop domain/);
    const bot = await context.app.http.get(`/shopify/auth?${signedInstallQuery(uniqueShop())}`).set('User-Agent', 'curl/8.4.0');
    expect(bot.status).toBe(410);
  });

  it('refuses a callback without the state cookie, or with a forged HMAC, and creates nothing', async () => {
    const shop = uniqueShop();
    const noCookie = await context.app.http
      .get(`/shopify/auth/callback?${signedCallbackQuery(shop, context.fake.authorize(shop), 'some-state')}`)
      .set('User-Agent', BROWSER_USER_AGENT);
    expect(noCookie.status).toBe(400);
    expect(noCookie.body.error).toMatch(/install could not be completed/);

    const begin = await context.app.http.get(`/shopify/auth?${signedInstallQuery(shop)}`).set('User-Agent', BROWSER_USER_AGENT);
    const state = new URL(begin.headers.location!).searchParams.get('state')!;
    const cookies = ([] as string[]).concat(begin.headers['set-cookie'] ?? []).map((cookie) => cookie.split(';')[0]).join('; ');
    const forged = await context.app.http
      .get(`/shopify/auth/callback?${signedCallbackQuery(shop, context.fake.authorize(shop), state, 'not-the-secret')}`)
      .set('User-Agent', BROWSER_USER_AGENT)
      .set('Cookie', cookies);
    expect(forged.status).toBe(400);
    expect(await context.app.db('shopify_shops').where({ shop_domain: shop })).toEqual([]);
  });

  it('the library client talks to the shop with the stored token (GraphQL Admin API 2026-10)', async () => {
    const installed = await installApp(context.app, context.fake);
    const session = await new KnexSessionStorage(context.app.db, TEST_SECRET).loadSession(`offline_${installed.shop}`);
    const api = adminApiFor(publicShopifyApp(loadShopifyConfig()!), session!);
    const data = await api.request<{ shop: { name: string } }>('#graphql\n query ConnectedShop { shop { name } }');
    expect(data.shop.name).toBe(`Shop ${installed.shop}`);
  });
});

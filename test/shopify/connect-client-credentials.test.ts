import { adminApiForBrand } from '../../connectors/shopify/admin-api';
import { loadShopifyConfig } from '../../connectors/shopify/shopify-config';
import { givenBrand } from '../helpers/fixtures';
import { TEST_SECRET, type TestApp, useTestAppOnRealPostgres } from '../helpers/test-app';
import { FakeClientCredentials } from './fake-client-credentials';
import { referrals, sendWebhook, uniqueShop, useFakeShopify, useShopifyEnv } from './shopify-test-kit';

// On a real PostgreSQL: two renewals racing from two connections is what the shop's lock is for.
useShopifyEnv();
const admin = useFakeShopify();
const shopify = new FakeClientCredentials(admin);
beforeAll(() => shopify.install()); // after the fake Admin API's own install: it wraps that one
let app: TestApp;
useTestAppOnRealPostgres((started) => (app = started));

const DAY_MS = 86_400_000;

/** `referrals shopify connect` with a Dev Dashboard app's client credentials. */
async function connectDevDashboardApp() {
  const brand = await givenBrand(app.db);
  const shop = uniqueShop();
  const credentials = shopify.createApp(shop);
  const run = await referrals(app, [
    'shopify', 'connect', '--brand', brand.brandId, '--shop', shop,
    '--client-id', credentials.clientId, '--client-secret', credentials.clientSecret, '--app-url', 'https://referrals.example.com', '--json',
  ]);
  return { brand, shop, credentials, run };
}

async function storedSession(brandId: string) {
  return app.db('shopify_sessions').where({ brand_id: brandId }).first();
}

/** The token the fake Admin API saw on the shop's latest ConnectedShop query. */
function lastTokenUsed(shop: string): string | undefined {
  return admin.graphqlCalls(shop, 'ConnectedShop').at(-1)?.headers['x-shopify-access-token'];
}

const CONNECTED_SHOP = '#graphql\n query ConnectedShop { shop { name } }';

describe('referrals shopify connect --client-id --client-secret (a Dev Dashboard app, client-credentials grant)', () => {
  it('obtains a 24-hour token by the client-credentials grant and stores it, and the client secret, encrypted', async () => {
    const { brand, shop, credentials, run } = await connectDevDashboardApp();
    expect(run.code).toBe(0);
    expect(run.progress.join('')).not.toContain('warning');
    expect(JSON.parse(run.stdout)).toMatchObject({ brand_id: brand.brandId, shop, shop_name: `Shop ${shop}`, app: 'custom' });
    expect(shopify.grants.get(shop)).toEqual([{ client_id: credentials.clientId, client_secret: credentials.clientSecret, grant_type: 'client_credentials' }]);

    const token = admin.customTokens.get(shop)!;
    expect(lastTokenUsed(shop)).toBe(token);
    const session = await storedSession(brand.brandId);
    expect(JSON.stringify(session)).not.toContain(token);
    const lifetime = new Date(session.expires_at).getTime() - Date.now();
    expect(lifetime).toBeGreaterThan(DAY_MS - 120_000);
    expect(lifetime).toBeLessThanOrEqual(DAY_MS);
    const link = await app.db('shopify_shops').where({ brand_id: brand.brandId }).first();
    expect(link).toMatchObject({ app_kind: 'custom', client_id: credentials.clientId });
    expect(link.api_secret_encrypted).not.toContain(credentials.clientSecret);

    // The client secret signs the app's webhooks.
    const signed = await sendWebhook(app, JSON.stringify({ id: 1 }), { topic: 'orders/paid', shop, secret: credentials.clientSecret });
    expect(signed.status).toBe(200);
    expect((await sendWebhook(app, JSON.stringify({ id: 1 }), { topic: 'orders/paid', shop, secret: 'another-secret' })).status).toBe(401);
  });

  it('renews a token about to expire before calling Shopify, and calls with the new one', async () => {
    const { brand, shop } = await connectDevDashboardApp();
    const first = admin.customTokens.get(shop)!;
    // Three minutes left of the 24 hours: inside the renewal margin.
    await app.db('shopify_sessions').where({ brand_id: brand.brandId }).update({ expires_at: new Date(Date.now() + 180_000) });

    const api = await adminApiForBrand(app.db, brand.brandId, { encryptionSecret: TEST_SECRET, appConfig: loadShopifyConfig() });
    await api.request(CONNECTED_SHOP);
    expect(shopify.grantCount(shop)).toBe(2);
    const renewed = admin.customTokens.get(shop)!;
    expect(renewed).not.toBe(first);
    expect(lastTokenUsed(shop)).toBe(renewed);
    expect(new Date((await storedSession(brand.brandId)).expires_at).getTime()).toBeGreaterThan(Date.now() + DAY_MS - 120_000);

    // Fresh now: the next call asks for no token.
    await adminApiForBrand(app.db, brand.brandId, { encryptionSecret: TEST_SECRET, appConfig: loadShopifyConfig() });
    expect(shopify.grantCount(shop)).toBe(2);
  });

  it('a day after connecting, `shopify status` renews the expired token and asks Shopify with the new one', async () => {
    const { brand, shop } = await connectDevDashboardApp();
    const first = admin.customTokens.get(shop)!;
    // The 24 hours are over: Shopify no longer takes the first token.
    await app.db('shopify_sessions').where({ brand_id: brand.brandId }).update({ expires_at: new Date(Date.now() - 60_000) });

    const status = await referrals(app, ['shopify', 'status', '--brand', brand.brandId, '--json']);
    expect(status.stderr).toBe('');
    const report = JSON.parse(status.stdout);
    expect(report).toMatchObject({ app: 'custom', live_check_error: null, actions: [] });
    expect(report.subscriptions.map((row: { live: boolean | null }) => row.live)).toEqual([true, true, true, true, true]);
    expect(shopify.grantCount(shop)).toBe(2);
    const renewed = admin.customTokens.get(shop)!;
    expect(renewed).not.toBe(first);
    expect(admin.graphqlCalls(shop, 'ExistingWebhookSubscriptions').at(-1)!.headers['x-shopify-access-token']).toBe(renewed);
  });

  it('renews an expired token once when two callers on two connections ask at the same moment', async () => {
    const { brand, shop } = await connectDevDashboardApp();
    await app.db('shopify_sessions').where({ brand_id: brand.brandId }).update({ expires_at: new Date(Date.now() - 1000) });
    shopify.delayMs = 200;
    try {
      const apis = await Promise.all(
        [1, 2].map(() => adminApiForBrand(app.db, brand.brandId, { encryptionSecret: TEST_SECRET, appConfig: loadShopifyConfig() })),
      );
      expect(shopify.grantCount(shop)).toBe(2); // the connect's, and one renewal
      for (const api of apis) await api.request(CONNECTED_SHOP);
      expect(admin.graphqlCalls(shop, 'ConnectedShop').slice(-2).map((call) => call.headers['x-shopify-access-token'])).toEqual([
        admin.customTokens.get(shop),
        admin.customTokens.get(shop),
      ]);
    } finally {
      shopify.delayMs = 0;
    }
  });

  it('refuses client credentials Shopify does not accept, and stores nothing', async () => {
    const brand = await givenBrand(app.db);
    const shop = uniqueShop();
    shopify.createApp(shop);
    const run = await referrals(app, ['shopify', 'connect', '--brand', brand.brandId, '--shop', shop, '--client-id', 'nope', '--client-secret', 'wrong']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Shopify refused the client credentials for ${shop}`);
    expect(await app.db('shopify_shops').where({ brand_id: brand.brandId })).toEqual([]);
    expect(await app.db('shopify_sessions').where({ brand_id: brand.brandId })).toEqual([]);
  });

  it('asks for both client credentials, and refuses them mixed with --access-token', async () => {
    const brand = await givenBrand(app.db);
    const missing = await referrals(app, ['shopify', 'connect', '--brand', brand.brandId, '--shop', uniqueShop(), '--client-id', 'abc']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--client-id and --client-secret are required');
    const mixed = await referrals(app, ['shopify', 'connect', '--brand', brand.brandId, '--shop', uniqueShop(), '--client-id', 'a', '--client-secret', 'b', '--access-token', 'c']);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('not both');
  });

  it('still connects a legacy app with --access-token, with a warning on stderr', async () => {
    const brand = await givenBrand(app.db);
    const shop = uniqueShop();
    admin.customTokens.set(shop, 'shpat_legacy_permanent');
    const run = await referrals(app, ['shopify', 'connect', '--brand', brand.brandId, '--shop', shop, '--access-token', 'shpat_legacy_permanent', '--api-secret', 'legacy-secret']);
    expect(run.code).toBe(0);
    expect(run.progress.join('')).toMatch(/^warning: --access-token connects a legacy custom app .* --client-id and --client-secret/);
    expect(await app.db('shopify_shops').where({ brand_id: brand.brandId }).first()).toMatchObject({ app_kind: 'custom', client_id: null });
    expect((await storedSession(brand.brandId)).expires_at).toBeNull();
    expect(shopify.grantCount(shop)).toBe(0);
  });
});

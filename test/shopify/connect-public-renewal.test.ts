import { adminApiForBrand } from '../../connectors/shopify/admin-api';
import { loadShopifyConfig } from '../../connectors/shopify/shopify-config';
import { TEST_SECRET, type TestApp, useTestAppOnRealPostgres } from '../helpers/test-app';
import { installApp, useFakeShopify, useShopifyEnv } from './shopify-test-kit';

// On a real PostgreSQL: the renewals race from two connections, as from two server processes.
useShopifyEnv();
const fake = useFakeShopify();
let app: TestApp;
useTestAppOnRealPostgres((started) => (app = started));

describe('the public app\'s expiring tokens under concurrent use', () => {
  it('refreshes an expired token once when two callers ask at the same moment (a refresh token works once), and both use the new token', async () => {
    const installed = await installApp(app, fake);
    const before = fake.tokens.get(installed.shop)!;
    await app.db('shopify_sessions').where({ brand_id: installed.brandId }).update({ expires_at: new Date(Date.now() - 1000) });

    const apis = await Promise.all(
      [1, 2].map(() => adminApiForBrand(app.db, installed.brandId, { encryptionSecret: TEST_SECRET, appConfig: loadShopifyConfig() })),
    );
    const refreshes = fake.tokenCalls(installed.shop).filter((call) => call.body.grant_type === 'refresh_token');
    expect(refreshes.map((call) => call.body.refresh_token)).toEqual([before.refreshToken]);

    const query = '#graphql\n query ConnectedShop { shop { name } }';
    for (const api of apis) await api.request(query);
    const used = fake.graphqlCalls(installed.shop, 'ConnectedShop').map((call) => call.headers['x-shopify-access-token']);
    expect(used).toEqual([fake.tokens.get(installed.shop)!.accessToken, fake.tokens.get(installed.shop)!.accessToken]);
  });
});

import { adminApiForBrand } from '../../connectors/shopify/admin-api';
import { loadShopifyConfig } from '../../connectors/shopify/shopify-config';
import { TEST_SECRET } from '../helpers/test-app';
import { firstAdminSchema } from './admin-schema';
import { installApp, setUpShopifyTests } from './shopify-test-kit';

// The fake Admin API answers as Shopify does: the query is validated and executed against the
// 2026-10 schema, its cost and scopes checked; these show it refuses what Shopify would.
const context = setUpShopifyTests();

async function adminApi() {
  const installed = await installApp(context.app, context.fake);
  const api = await adminApiForBrand(context.app.db, installed.brandId, { encryptionSecret: TEST_SECRET, appConfig: loadShopifyConfig() });
  return { installed, api };
}

describe('the Admin API (fake, on Shopify\'s schema and rules)', () => {
  it('checks documents against the part of the schema that globalSetup wrote for the run, not the whole schema', () => {
    expect(firstAdminSchema().subset).toBe(true);
  });

  it('rejects a query selecting a field the schema does not have', async () => {
    const { api } = await adminApi();
    await expect(api.request('#graphql\n query Bogus { orders(first: 1) { nodes { id bogusField } } }')).rejects.toThrow(
      'Cannot query field "bogusField" on type "Order".',
    );
  });

  it('rejects a query whose requested cost is over 1,000 points', async () => {
    const { api } = await adminApi();
    // 2 + 50 × (1 order + 2 + 50 × 1 line) = 2,652 points.
    await expect(api.request('#graphql\n query Big { orders(first: 50) { nodes { id lineItems(first: 50) { nodes { id } } } } }')).rejects.toThrow(
      'Query cost is 2652, which exceeds the single query max cost limit (1000).',
    );
  });

  it('rejects a field outside the granted scopes (the customer needs read_customers)', async () => {
    const { api } = await adminApi();
    await expect(api.request('#graphql\n query Customer { orders(first: 1) { nodes { id customer { id } } } }')).rejects.toThrow(
      'Access denied for QueryRoot.orders.nodes.customer.',
    );
  });

  it('rejects protected customer data the app was not approved for (the email without level 2)', async () => {
    const { installed, api } = await adminApi();
    context.fake.protectedContent.set(installed.shop, []);
    await expect(api.request('#graphql\n query Emails { orders(first: 1) { nodes { id email } } }')).rejects.toThrow('Access denied');
  });

  it('waits for the points to be restored when the throttle status says the bucket is low, instead of being THROTTLED', async () => {
    const { installed, api } = await adminApi();
    const query = '#graphql\n query Few { orders(first: 10) { nodes { id } } }'; // 2 + 10 × 1 = 12 points
    context.fake.buckets.set(installed.shop, { maximum: 30, available: 30, restoreRate: 20, at: Date.now() });
    const started = Date.now();
    for (let i = 0; i < 4; i += 1) await api.request(query);
    // 48 points from a bucket of 30 restoring 20 a second: at least ~0.9 s of waiting.
    expect(Date.now() - started).toBeGreaterThanOrEqual(800);
    expect(context.fake.throttled.filter((shop) => shop === installed.shop)).toEqual([]);
  });
});

import { givenBrand } from '../helpers/fixtures';
import { referrals, setUpShopifyTests, uniqueShop } from './shopify-test-kit';

const context = setUpShopifyTests();
const cli = (argv: string[]) => referrals(context.app, argv);
const URI = 'https://referrals.example.com/shopify/webhooks';
/** What webhookSubscriptionCreate answers for a protected topic while the app's access is not approved. */
const PROTECTED_DATA_REFUSAL =
  'This app is not approved to subscribe to webhook topics containing protected customer data. See https://shopify.dev/docs/apps/store/data-protection/protected-customer-data for more details.';

/** A brand connected to a shop through a custom app with a legacy token (shop-specific subscriptions). */
async function connectCustomApp() {
  const brand = await givenBrand(context.app.db);
  const shop = uniqueShop();
  context.fake.customTokens.set(shop, `shpat_${shop}`);
  const run = await cli([
    'shopify', 'connect', '--brand', brand.brandId, '--shop', shop,
    '--access-token', `shpat_${shop}`, '--api-secret', 'custom-secret', '--app-url', 'https://referrals.example.com', '--json',
  ]);
  return { brand, shop, run };
}

describe('shop-specific webhook subscriptions (custom apps)', () => {
  it('subscribes every other topic when Shopify refuses ORDERS_PAID for protected customer data, and `shopify status` says what to do', async () => {
    context.fake.refusedTopics.set('ORDERS_PAID', PROTECTED_DATA_REFUSAL);
    try {
      const { brand, shop, run } = await connectCustomApp();
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout).webhooks).toMatchObject({ uri: URI, refused: [{ topic: 'ORDERS_PAID', error: PROTECTED_DATA_REFUSAL }] });
      const subscribed = (context.fake.subscriptions.get(shop) ?? []).map((subscription) => subscription.topic).sort();
      expect(subscribed).toEqual(['APP_UNINSTALLED', 'ORDERS_CANCELLED', 'ORDER_TRANSACTIONS_CREATE', 'REFUNDS_CREATE']);

      const status = await cli(['shopify', 'status', '--brand', brand.brandId, '--json']);
      expect(status.code).toBe(0);
      const report = JSON.parse(status.stdout);
      expect(report).toMatchObject({ shop, app: 'custom', status: 'installed', webhooks: 'shop-specific' });
      expect(report.subscriptions).toHaveLength(5);
      expect(report.subscriptions.find((row: any) => row.topic === 'ORDERS_PAID')).toMatchObject({ status: 'refused', error: PROTECTED_DATA_REFUSAL, uri: URI });
      expect(report.subscriptions.filter((row: any) => row.status === 'subscribed')).toHaveLength(4);
      expect(report.actions).toHaveLength(1);
      expect(report.actions[0]).toContain('ORDERS_PAID');
      expect(report.actions[0]).toContain('Protected customer data');
      expect(report.actions[0]).toContain('referrals shopify reconcile');

      const readable = await cli(['shopify', 'status', '--brand', brand.brandId]);
      expect(readable.stdout).toContain('ORDERS_PAID');
    } finally {
      context.fake.refusedTopics.clear();
    }
  });

  it('reconcile re-creates a subscription Shopify deleted and one it refused before, and leaves the others alone', async () => {
    context.fake.refusedTopics.set('ORDERS_PAID', PROTECTED_DATA_REFUSAL);
    const { brand, shop } = await connectCustomApp();
    context.fake.refusedTopics.clear(); // access approved since
    // Shopify deletes a subscription after repeated failed deliveries.
    const subscriptions = context.fake.subscriptions.get(shop)!;
    subscriptions.splice(subscriptions.findIndex((subscription) => subscription.topic === 'REFUNDS_CREATE'), 1);
    const kept = subscriptions.map((subscription) => subscription.id).sort();
    context.fake.orders.set(shop, []);

    // `status` asks Shopify which subscriptions it still has.
    const before = JSON.parse((await cli(['shopify', 'status', '--brand', brand.brandId, '--json'])).stdout);
    expect(before.live_check_error).toBeNull();
    expect(before.subscriptions.find((row: any) => row.topic === 'REFUNDS_CREATE')).toMatchObject({ status: 'subscribed', live: false });
    expect(before.subscriptions.find((row: any) => row.topic === 'APP_UNINSTALLED')).toMatchObject({ status: 'subscribed', live: true });
    expect(before.actions.find((action: string) => action.startsWith('REFUNDS_CREATE'))).toContain('no longer lists this subscription');
    expect(before.actions.find((action: string) => action.startsWith('ORDERS_PAID'))).toContain('Protected customer data');

    const run = await cli(['shopify', 'reconcile', '--brand', brand.brandId, '--since', '2026-11-01', '--json']);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout).webhooks).toMatchObject({ uri: URI, refused: [] });
    expect(JSON.parse(run.stdout).webhooks.created.sort()).toEqual(['ORDERS_PAID', 'REFUNDS_CREATE']);
    expect((context.fake.subscriptions.get(shop) ?? []).map((subscription) => subscription.topic).sort()).toEqual([
      'APP_UNINSTALLED', 'ORDERS_CANCELLED', 'ORDERS_PAID', 'ORDER_TRANSACTIONS_CREATE', 'REFUNDS_CREATE',
    ]);
    expect(context.fake.subscriptions.get(shop)!.filter((subscription) => kept.includes(subscription.id))).toHaveLength(3);

    const report = JSON.parse((await cli(['shopify', 'status', '--brand', brand.brandId, '--json'])).stdout);
    expect(report.subscriptions.map((row: any) => row.status)).toEqual(['subscribed', 'subscribed', 'subscribed', 'subscribed', 'subscribed']);
    expect(report.actions).toEqual([]);
  });

  it('`shopify status` of an unconnected brand fails naming the cause', async () => {
    const brand = await givenBrand(context.app.db);
    const status = await cli(['shopify', 'status', '--brand', brand.brandId]);
    expect(status.code).toBe(1);
    expect(status.stderr).toContain('is not connected to a Shopify shop');
  });
});

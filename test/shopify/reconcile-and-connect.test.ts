import { processInbox } from '../../connectors/shopify/process-inbox';
import { givenAdvocate, givenBrand } from '../helpers/fixtures';
import { SHOP_CURRENCY, graphqlLine, graphqlOrder, graphqlRefund } from './admin-order-nodes';
import { exactNumber, fixtureText, inboxRow, installApp, referrals, sendWebhook, uniqueShop, setUpShopifyTests, variant } from './shopify-test-kit';

const context = setUpShopifyTests();

const cli = (argv: string[], tty = false) => referrals(context.app, argv, { tty });

describe('referrals shopify reconcile', () => {
  it('backfills a paid order whose webhook never came (and its refund), through the same path, idempotently', async () => {
    const installed = await installApp(context.app, context.fake, undefined, 'premier', SHOP_CURRENCY);
    await givenAdvocate(context.app.db, installed.brandId, { code: 'TENOFF' });
    // This order's webhook did come.
    const delivered = variant(fixtureText('order-with-discount-code.shopify-api-fixture.json'), (order) => {
      order.id = exactNumber('820982911946154508');
      order.currency = SHOP_CURRENCY; // the same shop as the Admin API's orders
    });
    await sendWebhook(context.app, delivered, { topic: 'orders/paid', shop: installed.shop });
    await processInbox(context.app.db, { brandId: installed.brandId });

    context.fake.orders.set(installed.shop, [
      graphqlOrder('820982911946154508', { email: 'bob.norman@mail.example.com', codes: ['TENOFF'], total: '598.94' }),
      graphqlOrder('820982911946154999', { email: 'eve@example.com', codes: ['tenoff'], refunds: [{ id: '890088186047892319', amount: '20.00' }] }),
      graphqlOrder('820982911946155001', { email: 'nobody@example.com' }),
      graphqlOrder('820982911946155002', { email: 'nobody2@example.com', status: 'PENDING' }),
      graphqlOrder('820982911946155003', { email: 'nobody3@example.com', refunds: [{ id: '890088186047892400', amount: '5.00' }] }),
      graphqlOrder('820982911946155004', { email: 'nobody4@example.com', status: 'REFUNDED' }),
      graphqlOrder('820982911946155005', { email: 'nobody5@example.com' }),
    ]);

    const run = await cli(['shopify', 'reconcile', '--brand', installed.brandId, '--since', '2026-11-01', '--json'], true);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({
      shop: installed.shop,
      since: '2026-11-01',
      orders_checked: 7,
      conversions_backfilled: 1,
      refunds_backfilled: 1,
      orders: { duplicate_order: 1, conversion_recorded: 1, not_attributed: 4, not_paid: 1 },
      refunds: { refund_recorded: 1, 'ignored: order 820982911946155003 has no conversion': 1 },
      failed: [],
    });
    // A progress bar on a terminal, ending full.
    expect(run.progress.at(-2)).toBe(`\r[${'█'.repeat(30)}] 7/7 orders`);
    expect(run.progress.at(-1)).toBe('\n');

    const backfilled = await context.app.db('conversions').where({ brand_id: installed.brandId, order_id: '820982911946154999' }).first();
    expect(backfilled).toMatchObject({ email: 'eve@example.com', order_value: '120.00', order_subtotal: '110.00', discount_applied: '12.00', currency: 'EUR', referral_code: 'TENOFF', source: 'shopify', status: 'partial_refund', refunded_total: '20.00' });
    expect(backfilled.claim_id).not.toBeNull();
    const products = await context.app.db('conversion_products').where({ brand_id: installed.brandId, conversion_id: backfilled.conversion_id });
    expect(products).toMatchObject([{ name: 'Tee', quantity: 2, price: '61.00', line_total: '110.00', sku: 'TEE-1' }]);
    expect(products[0].attributes).toMatchObject({ line_item_id: '866550311766439020' });
    expect(await inboxRow(context.app.db, installed.brandId, 'reconcile:orders/paid:820982911946154999')).toMatchObject({ status: 'done', outcome: 'conversion_recorded' });

    const query = context.fake.graphqlCalls(installed.shop, 'ReconcileOrders');
    // An order node costs 137 points (1 + 10 money bags × 3 + attributes 1 + journey 3 + 10 lines × 9 + 2 + 10 refund ids): 7 fit under 1,000.
    expect(query).toHaveLength(1);
    expect(query[0]!.body.variables).toMatchObject({ first: 7, query: "updated_at:>='2026-11-01'" });
    expect(context.fake.costs.filter((call) => call.shop === installed.shop && call.operation === 'ReconcileOrders')).toEqual([{ shop: installed.shop, operation: 'ReconcileOrders', cost: 961 }]);

    // Again: nothing changes.
    const counts = async () => ({
      conversions: (await context.app.db('conversions').where({ brand_id: installed.brandId })).length,
      claims: (await context.app.db('claims').where({ brand_id: installed.brandId })).length,
      refunds: (await context.app.db('refunds').where({ brand_id: installed.brandId })).length,
    });
    const before = await counts();
    expect(before).toEqual({ conversions: 2, claims: 2, refunds: 1 });
    const second = JSON.parse((await cli(['shopify', 'reconcile', '--brand', installed.brandId, '--since', '2026-11-01', '--json'])).stdout);
    expect(second).toMatchObject({ conversions_backfilled: 0, refunds_backfilled: 0, orders: { reconciled_before: 6, not_paid: 1 } });
    expect(await counts()).toEqual(before);
  });

  it('reads an order of 25 lines and 12 refunds whole, in queries Shopify accepts (each under 1,000 points)', async () => {
    const installed = await installApp(context.app, context.fake, undefined, 'premier', SHOP_CURRENCY);
    await givenAdvocate(context.app.db, installed.brandId, { code: 'BIGOFF' });
    const lines = Array.from({ length: 25 }, (_, index) => graphqlLine(`7000${index}`, { title: `Item ${index}`, price: '10.00', code: index === 0 ? 'BIGOFF' : undefined }));
    const refunds = Array.from({ length: 12 }, (_, index) => graphqlRefund(`8000${index}`, ['0.50', '0.50']));
    context.fake.orders.set(installed.shop, [graphqlOrder('820982911946160001', { email: 'big@example.com', codes: ['BIGOFF'], total: '250.00', lines, refundNodes: refunds })]);

    const run = await cli(['shopify', 'reconcile', '--brand', installed.brandId, '--since', '2026-11-01', '--json']);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({ conversions_backfilled: 1, refunds_backfilled: 12, failed: [] });
    const conversion = await context.app.db('conversions').where({ brand_id: installed.brandId, order_id: '820982911946160001' }).first();
    expect(conversion.refunded_total).toBe('12.00');
    expect(await context.app.db('conversion_products').where({ brand_id: installed.brandId, conversion_id: conversion.conversion_id })).toHaveLength(25);

    const calls = context.fake.costs.filter((call) => call.shop === installed.shop);
    expect(calls.map((call) => call.operation).filter((name) => name !== 'ReconcileOrdersCount' && name !== 'ShopCurrency')).toEqual([
      'ReconcileOrders',
      'ReconcileOrderLineItems', // lines 11–25
      'ReconcileOrderRefunds', // the first 10 refund ids filled the list
      ...Array(12).fill('ReconcileRefund'),
    ]);
    for (const call of calls) expect(call.cost).toBeLessThanOrEqual(1000);
    expect(context.fake.graphqlCalls(installed.shop, 'ReconcileOrderLineItems')[0]!.body.variables).toMatchObject({ id: 'gid://shopify/Order/820982911946160001', after: '10' });
  });

  it('backfills a USD shop\'s EUR order and its €550 refund in dollars (shop money), the buyer\'s currency kept for display', async () => {
    const installed = await installApp(context.app, context.fake, undefined, 'premier', 'USD');
    await givenAdvocate(context.app.db, installed.brandId, { code: 'EUROFF' });
    const usdEur = (usd: string, eur: string) => ({ shopMoney: { amount: usd, currencyCode: 'USD' }, presentmentMoney: { amount: eur, currencyCode: 'EUR' } });
    const order = {
      ...graphqlOrder('820982911946180001', { email: 'euro@example.com', codes: ['EUROFF'] }),
      currencyCode: 'USD',
      presentmentCurrencyCode: 'EUR',
      totalPriceSet: usdEur('598.94', '550.00'),
      subtotalPriceSet: usdEur('598.94', '550.00'),
      totalDiscountsSet: usdEur('0.00', '0.00'),
      totalTaxSet: usdEur('0.00', '0.00'),
      totalShippingPriceSet: usdEur('0.00', '0.00'),
      currentTotalPriceSet: usdEur('598.94', '550.00'),
      currentSubtotalPriceSet: usdEur('598.94', '550.00'),
      currentTotalDiscountsSet: usdEur('0.00', '0.00'),
      currentTotalTaxSet: usdEur('0.00', '0.00'),
      currentShippingPriceSet: usdEur('0.00', '0.00'),
      lineItems: { nodes: [{ ...graphqlLine('7300001', { code: 'EUROFF' }), originalUnitPriceSet: usdEur('598.94', '550.00'), discountAllocations: [{ allocatedAmountSet: usdEur('0.00', '0.00'), discountApplication: { __typename: 'DiscountCodeApplication', code: 'EUROFF' } }] }] },
      refunds: [{ ...graphqlRefund('8300001', []), transactions: { nodes: [{ id: 'gid://shopify/OrderTransaction/8300001', kind: 'REFUND', status: 'SUCCESS', test: false, processedAt: null, amountSet: usdEur('598.94', '550.00') }] } }],
    };
    context.fake.orders.set(installed.shop, [order]);

    const run = await cli(['shopify', 'reconcile', '--brand', installed.brandId, '--since', '2026-11-01', '--json']);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({ conversions_backfilled: 1, refunds_backfilled: 1, failed: [] });
    const conversion = await context.app.db('conversions').where({ brand_id: installed.brandId, order_id: '820982911946180001' }).first();
    expect(conversion).toMatchObject({ currency: 'USD', order_value: '598.94', refunded_total: '598.94', status: 'refunded' });
    expect(conversion.metadata).toMatchObject({ presentment_currency: 'EUR', presentment_total: 550 });
  });

  it('--bulk reads every order through one bulk operation (large backfills), every line of it, with the same outcome', async () => {
    const installed = await installApp(context.app, context.fake, undefined, 'premier', SHOP_CURRENCY);
    await givenAdvocate(context.app.db, installed.brandId, { code: 'BULKOFF' });
    const lines = Array.from({ length: 25 }, (_, index) => graphqlLine(`9100${index}`, { title: `Bulk ${index}`, price: '10.00', code: index === 0 ? 'BULKOFF' : undefined }));
    context.fake.orders.set(installed.shop, [
      graphqlOrder('820982911946170001', { email: 'bulk@example.com', codes: ['BULKOFF'], total: '250.00', lines, refunds: [{ id: '890088186047899001', amount: '10.00' }] }),
      graphqlOrder('820982911946170002', { email: 'nobody@example.com' }),
      graphqlOrder('820982911946170003', { email: 'pending@example.com', status: 'PENDING' }),
    ]);

    const run = await cli(['shopify', 'reconcile', '--brand', installed.brandId, '--since', '2026-11-01', '--bulk', '--json']);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({
      orders_checked: 3,
      conversions_backfilled: 1,
      refunds_backfilled: 1,
      orders: { conversion_recorded: 1, not_attributed: 1, not_paid: 1 },
      failed: [],
    });
    const started = context.fake.bulkOperations.filter((operation) => operation.shop === installed.shop);
    expect(started).toHaveLength(1);
    expect(started[0]!.query).toContain(`orders(query: "updated_at:>='2026-11-01'"`);
    expect(context.fake.graphqlCalls(installed.shop, 'ReconcileOrders')).toEqual([]);
    const conversion = await context.app.db('conversions').where({ brand_id: installed.brandId, order_id: '820982911946170001' }).first();
    expect(conversion).toMatchObject({ email: 'bulk@example.com', referral_code: 'BULKOFF', refunded_total: '10.00' });
    expect(await context.app.db('conversion_products').where({ brand_id: installed.brandId, conversion_id: conversion.conversion_id })).toHaveLength(25);
  });

  it('prints a readable summary without a progress bar when not on a terminal, checks its arguments, and names the access to request when Shopify denies a field', async () => {
    const installed = await installApp(context.app, context.fake);
    context.fake.orders.set(installed.shop, []);
    const run = await cli(['shopify', 'reconcile', '--brand', installed.brandId, '--since', '2026-11-01']);
    expect(run.code).toBe(0);
    expect(run.progress).toEqual([]);
    expect(run.stdout).toContain('orders_checked: 0');
    const bad = await cli(['shopify', 'reconcile', '--brand', installed.brandId, '--since', 'last week']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--since must be a date like 2026-11-01');
    // Without protected customer data access (Email), Shopify refuses the orders query: say what to ask for.
    context.fake.protectedContent.set(installed.shop, []);
    context.fake.orders.set(installed.shop, [graphqlOrder('820982911946190001', { email: 'x@example.com' })]);
    const denied = await cli(['shopify', 'reconcile', '--brand', installed.brandId, '--since', '2026-11-01']);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('Access denied for QueryRoot.orders.nodes.email.');
    expect(denied.stderr).toContain('protected customer data access (level 1, and level 2 for Email)');
    const notConnected = await givenBrand(context.app.db);
    const unlinked = await cli(['shopify', 'reconcile', '--brand', notConnected.brandId, '--since', '2026-11-01']);
    expect(unlinked.code).toBe(1);
    expect(unlinked.stderr).toContain('is not connected to a Shopify shop');
  });
});

describe('referrals shopify connect (a merchant\'s own custom app)', () => {
  it('links the brand, subscribes the webhooks with the custom token, and accepts webhooks signed with the custom app\'s secret', async () => {
    const brand = await givenBrand(context.app.db, { plan: 'premier' });
    await givenAdvocate(context.app.db, brand.brandId, { code: 'TENOFF' });
    const shop = uniqueShop();
    context.fake.customTokens.set(shop, 'shpat_custom_token');
    const run = await cli([
      'shopify', 'connect', '--brand', brand.brandId, '--shop', shop,
      '--access-token', 'shpat_custom_token', '--api-secret', 'custom-app-secret', '--app-url', 'https://referrals.example.com', '--json',
    ]);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({
      brand_id: brand.brandId,
      shop,
      shop_name: `Shop ${shop}`,
      app: 'custom',
      webhooks: {
        uri: 'https://referrals.example.com/shopify/webhooks',
        created: expect.arrayContaining(['ORDERS_PAID', 'REFUNDS_CREATE', 'APP_UNINSTALLED', 'ORDERS_CANCELLED', 'ORDER_TRANSACTIONS_CREATE']),
        refused: [],
      },
    });
    expect(JSON.parse(run.stdout).webhooks.created).toHaveLength(5);
    expect(context.fake.graphqlCalls(shop, 'CreateWebhookSubscription')[0]!.headers['x-shopify-access-token']).toBe('shpat_custom_token');
    const link = await context.app.db('shopify_shops').where({ brand_id: brand.brandId }).first();
    expect(link).toMatchObject({ shop_domain: shop, app_kind: 'custom', status: 'installed', created_brand: false });
    expect(link.api_secret_encrypted).not.toContain('custom-app-secret');
    expect(JSON.stringify(await context.app.db('shopify_sessions').where({ brand_id: brand.brandId }))).not.toContain('shpat_custom_token');
    // Audited as the operator's change, never with the token or the secret (issue 39, 5: it was missing).
    const audit = await context.app.db('audit_log').where({ brand_id: brand.brandId, action: 'shopify.connect' });
    expect(audit).toEqual([expect.objectContaining({ actor: 'operator (CLI)', subject: `shop:${shop}` })]);
    expect(JSON.stringify(audit)).not.toMatch(/shpat_custom_token|custom-app-secret/);

    const order = fixtureText('order-with-discount-code.shopify-api-fixture.json');
    expect((await sendWebhook(context.app, order, { topic: 'orders/paid', shop, secret: 'not-the-custom-secret' })).status).toBe(401);
    const accepted = await sendWebhook(context.app, order, { topic: 'orders/paid', shop, secret: 'custom-app-secret', webhookId: 'custom-1' });
    expect(accepted.status).toBe(200);
    await processInbox(context.app.db, { brandId: brand.brandId });
    expect(await inboxRow(context.app.db, brand.brandId, 'custom-1')).toMatchObject({ outcome: 'conversion_recorded' });

    // The stored custom token serves reconcile too.
    context.fake.orders.set(shop, [graphqlOrder('450789469', { email: 'bob.norman@mail.example.com', codes: ['TENOFF'] })]);
    const reconcile = JSON.parse((await cli(['shopify', 'reconcile', '--brand', brand.brandId, '--since', '2026-11-01', '--json'])).stdout);
    expect(reconcile.orders).toEqual({ duplicate_order: 1 });
  });

  it('refuses a token Shopify does not accept, and a shop already connected to another brand', async () => {
    const brand = await givenBrand(context.app.db);
    const shop = uniqueShop();
    const refused = await cli(['shopify', 'connect', '--brand', brand.brandId, '--shop', shop, '--access-token', 'wrong', '--api-secret', 's']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Shopify refused the access token for ${shop}`);
    expect(await context.app.db('shopify_shops').where({ shop_domain: shop })).toEqual([]);

    const installed = await installApp(context.app, context.fake);
    context.fake.customTokens.set(installed.shop, 'shpat_other');
    const taken = await cli(['shopify', 'connect', '--brand', brand.brandId, '--shop', installed.shop, '--access-token', 'shpat_other', '--api-secret', 's']);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain(`is already connected to brand ${installed.brandId}`);

    const badShop = await cli(['shopify', 'connect', '--brand', brand.brandId, '--shop', 'example.com', '--access-token', 't', '--api-secret', 's']);
    expect(badShop.code).toBe(2);
    expect(badShop.stderr).toContain('--shop must be');
  });
});

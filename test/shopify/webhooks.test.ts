import { shopifyRoutes } from '../../connectors/shopify/http-routes';
import { InboxBell, startShopifyInboxWorker } from '../../connectors/shopify/inbox-worker';
import { loadShopifySettings } from '../../connectors/shopify/shopify-config';
import { processInbox } from '../../connectors/shopify/process-inbox';
import { TOPIC_HANDLERS } from '../../connectors/shopify/topics/topic-handlers';
import { updateBrand } from '../../core/brands/brand';
import { rewardBalance } from '../../core/ledger/reward-ledger';
import pino from 'pino';
import { givenAdvocate } from '../helpers/fixtures';
import { startTestApp } from '../helpers/test-app';
import { exactNumber, fixtureText, inboxRow, installApp, referrals, refundOf, sendWebhook, setUpShopifyTests, variant } from './shopify-test-kit';

const context = setUpShopifyTests();

const ORDER_WITH_TENOFF = fixtureText('order-with-discount-code.shopify-api-fixture.json');
const ORDERS_PAID_SAMPLE = fixtureText('orders-paid.webhook-sample.json');
const REFUND_SAMPLE = fixtureText('refunds-create.webhook-sample.json');
const inOneDay = () => new Date(Date.now() + 24 * 3600_000);

/** An installed shop on the premier plan (claims allowed), rewarding 10 per conversion, with TENOFF as a referral code. */
async function premierShopWithTenoff(plan: 'premier' | 'growth' = 'premier') {
  const installed = await installApp(context.app, context.fake, undefined, plan);
  await updateBrand(context.app.db, installed.brandId, { reward_type: 'fixed', reward_value: 10, reward_hold_days: 0, reward_fulfilment: 'payout' }); // the reward stays in the balance (not issued as a code)
  const advocate = await givenAdvocate(context.app.db, installed.brandId, { code: 'TENOFF' });
  return { ...installed, advocate };
}

async function conversionOf(brandId: string, orderId: string) {
  return context.app.db('conversions').where({ brand_id: brandId, order_id: orderId }).first();
}

describe('POST /shopify/webhooks', () => {
  it('a signed orders/paid with a referral discount code → claim (source shopify) + conversion with the right money and products', async () => {
    const shop = await premierShopWithTenoff();
    const response = await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: shop.shop, webhookId: 'w-tenoff-1' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, data: { accepted: true, duplicate: false } });

    expect(await processInbox(context.app.db, { brandId: shop.brandId })).toMatchObject({ done: 1, failed: 0 });
    const conversion = await conversionOf(shop.brandId, '450789469');
    expect(conversion).toMatchObject({
      email: 'bob.norman@mail.example.com',
      customer_name: 'Bob Norman',
      order_value: '598.94',
      // Shopify's subtotal is after discounts: the three lines' 195.66 + 195.67 + 195.67.
      order_subtotal: '587.00',
      discount_applied: '10.00',
      total_discount: '10.00',
      currency: 'USD',
      source: 'shopify',
      status: 'completed',
      referral_code: 'TENOFF',
      referrer_reward_paid: '10.00',
    });
    expect(conversion.coupons_applied).toEqual([{ code: 'TENOFF', discount_amount: 10 }]);
    expect(conversion.metadata).toMatchObject({ shop: shop.shop, order_name: '#1001', total_tax: 11.94, shipping: 0 });

    const claim = await context.app.db('claims').where({ brand_id: shop.brandId, claim_id: conversion.claim_id }).first();
    expect(claim).toMatchObject({
      source: 'shopify',
      status: 'converted',
      referral_code: 'TENOFF',
      email_normalized: 'bob.norman@mail.example.com',
      order_id: '450789469',
      claim_value: '598.94',
      discount_applied: '10.00',
    });

    const products = await context.app.db('conversion_products').where({ brand_id: shop.brandId, conversion_id: conversion.conversion_id }).orderBy('line_no');
    expect(products.map((line: Record<string, any>) => [line.name, line.quantity, line.price, line.line_total, line.sku])).toEqual([
      ['IPod Nano - 8gb', 1, '199.00', '195.66', 'IPOD2008GREEN'],
      ['IPod Nano - 8gb', 1, '199.00', '195.67', 'IPOD2008RED'],
      ['IPod Nano - 8gb', 1, '199.00', '195.67', 'IPOD2008BLACK'],
    ]);
    expect(products[0].attributes).toMatchObject({ variant_id: '39072856', product_id: '632910392', discount_allocations: [{ amount: 3.34 }] });
    expect(await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).toMatchObject({ balance: 10 });
    expect(await inboxRow(context.app.db, shop.brandId, 'w-tenoff-1')).toMatchObject({ status: 'done', attempts: 1, outcome: 'conversion_recorded', order_id: '450789469' });
  });

  it('the same delivery again → 200, nothing changes (and a second event for the same order is a duplicate)', async () => {
    const shop = await premierShopWithTenoff();
    await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: shop.shop, webhookId: 'w-repeat' });
    await processInbox(context.app.db, { brandId: shop.brandId });
    const before = await conversionOf(shop.brandId, '450789469');

    const again = await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: shop.shop, webhookId: 'w-repeat' });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ accepted: true, duplicate: true });
    expect(await processInbox(context.app.db, { brandId: shop.brandId })).toEqual({ done: 0, retrying: 0, failed: 0 });

    await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: shop.shop, webhookId: 'w-repeat-new-event' });
    await processInbox(context.app.db, { brandId: shop.brandId });
    expect(await inboxRow(context.app.db, shop.brandId, 'w-repeat-new-event')).toMatchObject({ status: 'done', outcome: 'duplicate_order' });

    expect(await context.app.db('shopify_inbox').where({ brand_id: shop.brandId })).toHaveLength(2);
    expect(await context.app.db('conversions').where({ brand_id: shop.brandId })).toHaveLength(1);
    expect(await context.app.db('claims').where({ brand_id: shop.brandId })).toHaveLength(1);
    expect(await conversionOf(shop.brandId, '450789469')).toEqual(before);
    expect(await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).toMatchObject({ balance: 10 });
  });

  it('a bad or missing HMAC → 401 and nothing stored', async () => {
    const shop = await premierShopWithTenoff();
    const forged = await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: shop.shop, secret: 'someone-else' });
    expect(forged.status).toBe(401);
    expect(forged.body).toEqual({ success: false, error: 'invalid or missing webhook signature (X-Shopify-Hmac-Sha256)', code: 'unauthorized' });
    const missing = await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: shop.shop, hmac: null });
    expect(missing.status).toBe(401);
    const signedOtherBytes = await sendWebhook(context.app, `${ORDER_WITH_TENOFF} `, {
      topic: 'orders/paid',
      shop: shop.shop,
      hmac: require('node:crypto').createHmac('sha256', 'test-shopify-client-secret').update(ORDER_WITH_TENOFF).digest('base64'),
    });
    expect(signedOtherBytes.status).toBe(401);
    expect(await context.app.db('shopify_inbox').where({ brand_id: shop.brandId })).toEqual([]);
    await processInbox(context.app.db, { brandId: shop.brandId });
    expect(await context.app.db('conversions').where({ brand_id: shop.brandId })).toEqual([]);
  });

  it('acknowledges at once, before processing: the delivery waits in the inbox', async () => {
    const shop = await premierShopWithTenoff();
    const started = Date.now();
    const response = await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: shop.shop, webhookId: 'w-fast' });
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await conversionOf(shop.brandId, '450789469')).toBeUndefined();
    expect(await inboxRow(context.app.db, shop.brandId, 'w-fast')).toMatchObject({ status: 'pending', attempts: 0, topic: 'orders/paid' });
  });

  it('refunds → partial_refund, then refunded once the cumulative refund reaches the order value', async () => {
    const shop = await premierShopWithTenoff();
    await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: shop.shop });
    await processInbox(context.app.db, { brandId: shop.brandId });

    await sendWebhook(context.app, refundOf('450789469', '509562969', '209.00'), { topic: 'refunds/create', shop: shop.shop, webhookId: 'r-1' });
    await processInbox(context.app.db, { brandId: shop.brandId });
    let conversion = await conversionOf(shop.brandId, '450789469');
    expect(conversion).toMatchObject({ status: 'partial_refund', refunded_total: '209.00' });
    expect(await context.app.db('claims').where({ brand_id: shop.brandId, claim_id: conversion.claim_id }).first()).toMatchObject({ status: 'partial_refund' });
    expect(await context.app.db('refunds').where({ brand_id: shop.brandId, refund_id: '509562969' }).first()).toMatchObject({ amount: '209.00', source: 'shopify' });

    // The restock-only sample moves no money: nothing changes.
    await sendWebhook(context.app, variant(REFUND_SAMPLE, (refund) => (refund.order_id = 450789469)), { topic: 'refunds/create', shop: shop.shop, webhookId: 'r-restock' });
    await processInbox(context.app.db, { brandId: shop.brandId });
    expect(await inboxRow(context.app.db, shop.brandId, 'r-restock')).toMatchObject({ status: 'done', outcome: 'ignored: no money refunded' });

    await sendWebhook(context.app, refundOf('450789469', '509562970', '389.94'), { topic: 'refunds/create', shop: shop.shop, webhookId: 'r-2' });
    await processInbox(context.app.db, { brandId: shop.brandId });
    conversion = await conversionOf(shop.brandId, '450789469');
    expect(conversion).toMatchObject({ status: 'refunded', refunded_total: '598.94' });
    expect(await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).toMatchObject({ balance: 0 });

    // The same refund id in another delivery is a duplicate.
    await sendWebhook(context.app, refundOf('450789469', '509562970', '389.94'), { topic: 'refunds/create', shop: shop.shop, webhookId: 'r-2-again' });
    await processInbox(context.app.db, { brandId: shop.brandId });
    expect(await inboxRow(context.app.db, shop.brandId, 'r-2-again')).toMatchObject({ status: 'done', outcome: 'duplicate_refund' });
    expect(await context.app.db('refunds').where({ brand_id: shop.brandId })).toHaveLength(2);
  });

  it('an order id of 820982911946154508 keeps every digit, from orders/paid to its refund', async () => {
    const shop = await premierShopWithTenoff();
    const order = variant(ORDERS_PAID_SAMPLE, (payload) => {
      payload.id = exactNumber('820982911946154508');
      payload.test = false;
      payload.discount_codes = [{ code: 'tenoff', amount: '20.00', type: 'fixed_amount' }];
    });
    expect(order).toContain('"id":820982911946154508');
    await sendWebhook(context.app, order, { topic: 'orders/paid', shop: shop.shop, webhookId: 'big-1' });
    await processInbox(context.app.db, { brandId: shop.brandId });
    expect(await inboxRow(context.app.db, shop.brandId, 'big-1')).toMatchObject({ order_id: '820982911946154508', outcome: 'conversion_recorded' });
    const conversion = await conversionOf(shop.brandId, '820982911946154508');
    expect(conversion).toMatchObject({ order_value: '398.00', referral_code: 'TENOFF' }); // current_total_price_set
    expect(await conversionOf(shop.brandId, '820982911946154500')).toBeUndefined();

    await sendWebhook(context.app, refundOf('820982911946154508', '890088186047892319', '100.00'), { topic: 'refunds/create', shop: shop.shop, webhookId: 'big-r' });
    await processInbox(context.app.db, { brandId: shop.brandId });
    expect(await context.app.db('refunds').where({ brand_id: shop.brandId, refund_id: '890088186047892319' }).first()).toMatchObject({ amount: '100.00' });
    expect(await conversionOf(shop.brandId, '820982911946154508')).toMatchObject({ status: 'partial_refund', refunded_total: '100.00' });
  });

  it('without claims in the plan, a referral discount code still attributes the conversion (no claim)', async () => {
    const shop = await premierShopWithTenoff('growth');
    await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: shop.shop });
    await processInbox(context.app.db, { brandId: shop.brandId });
    expect(await conversionOf(shop.brandId, '450789469')).toMatchObject({ referral_code: 'TENOFF', claim_id: null, order_value: '598.94' });
    expect(await context.app.db('claims').where({ brand_id: shop.brandId })).toEqual([]);
  });

  it('attributes by cart attribute (ref), else by landing_site parameter, when no discount code is a referral code', async () => {
    const installed = await installApp(context.app, context.fake, undefined, 'growth');
    const cartAdvocate = await givenAdvocate(context.app.db, installed.brandId, { code: 'CARTANN' });
    const landingAdvocate = await givenAdvocate(context.app.db, installed.brandId, { code: 'LANDBOB' });
    const byCart = variant(ORDER_WITH_TENOFF, (order) => {
      order.id = 1001001;
      order.note_attributes = [{ name: 'ref', value: 'NOSUCHCODE' }, { name: 'referral_code', value: 'cartann' }];
      order.landing_site = '/?ref=LANDBOB';
    });
    const byLanding = variant(ORDER_WITH_TENOFF, (order) => {
      order.id = 1001002;
      order.note_attributes = [];
      order.landing_site = 'https://shop.example/?utm_source=mail&adv=LANDBOB';
    });
    const unknown = variant(ORDER_WITH_TENOFF, (order) => {
      order.id = 1001003;
      order.landing_site = '/?ref=NOBODY';
    });
    for (const body of [byCart, byLanding, unknown]) await sendWebhook(context.app, body, { topic: 'orders/paid', shop: installed.shop });
    expect(await processInbox(context.app.db, { brandId: installed.brandId })).toMatchObject({ done: 3 });
    expect(await conversionOf(installed.brandId, '1001001')).toMatchObject({ referral_code: 'CARTANN', advocate_id: String(cartAdvocate.advocateId) });
    expect(await conversionOf(installed.brandId, '1001002')).toMatchObject({ referral_code: 'LANDBOB', advocate_id: String(landingAdvocate.advocateId) });
    expect(await conversionOf(installed.brandId, '1001003')).toBeUndefined();
    expect(await context.app.db('shopify_inbox').where({ brand_id: installed.brandId, order_id: '1001003' }).first()).toMatchObject({ outcome: 'not_attributed' });
  });

  it('a refund that arrives before its order waits (with backoff) and is recorded once the order is', async () => {
    const shop = await premierShopWithTenoff();
    await sendWebhook(context.app, refundOf('450789469', '509562969', '100.00'), { topic: 'refunds/create', shop: shop.shop, webhookId: 'early-refund' });
    expect(await processInbox(context.app.db, { brandId: shop.brandId })).toMatchObject({ retrying: 1 });
    const waiting = await inboxRow(context.app.db, shop.brandId, 'early-refund');
    expect(waiting).toMatchObject({ status: 'pending', attempts: 1, last_error: 'order 450789469 has not been recorded (yet)' });
    expect(new Date(waiting!.next_attempt_at).getTime()).toBeGreaterThan(Date.now() + 5000);

    await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: shop.shop });
    expect(await processInbox(context.app.db, { brandId: shop.brandId })).toMatchObject({ done: 1 }); // the order; the refund is not due yet
    expect(await processInbox(context.app.db, { now: inOneDay(), brandId: shop.brandId })).toMatchObject({ done: 1 });
    expect(await inboxRow(context.app.db, shop.brandId, 'early-refund')).toMatchObject({ status: 'done', attempts: 2, outcome: 'refund_recorded' });
    expect(await conversionOf(shop.brandId, '450789469')).toMatchObject({ status: 'partial_refund', refunded_total: '100.00' });
  });

  it('a refund of an order that was not a referral is closed without a conversion', async () => {
    const installed = await installApp(context.app, context.fake);
    await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: installed.shop });
    await sendWebhook(context.app, refundOf('450789469', '509562969', '10.00'), { topic: 'refunds/create', shop: installed.shop, webhookId: 'refund-unattributed' });
    expect(await processInbox(context.app.db, { brandId: installed.brandId })).toMatchObject({ done: 2 });
    expect(await inboxRow(context.app.db, installed.brandId, 'refund-unattributed')).toMatchObject({ outcome: 'ignored: order 450789469 has no conversion' });
  });

  it('failed processing is retried with backoff, and visible with `referrals shopify inbox`', async () => {
    const shop = await premierShopWithTenoff();
    const original = TOPIC_HANDLERS['orders/paid']!;
    // Away for the whole first pass (its first try, without a savepoint, and the isolated one after it).
    let databaseAway = true;
    TOPIC_HANDLERS['orders/paid'] = async (...args) => {
      if (databaseAway) throw new Error('database went away');
      return original(...args);
    };
    try {
      await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: shop.shop, webhookId: 'flaky' });
      expect(await processInbox(context.app.db, { brandId: shop.brandId })).toMatchObject({ retrying: 1 });
      databaseAway = false;
      expect(await conversionOf(shop.brandId, '450789469')).toBeUndefined();

      const cli = await referrals(context.app, ['shopify', 'inbox', '--brand', shop.brandId, '--status', 'pending', '--json']);
      expect(cli.code).toBe(0);
      const listed = JSON.parse(cli.stdout);
      expect(listed.counts).toEqual({ pending: 1, done: 0, failed: 0 });
      expect(listed.deliveries[0]).toMatchObject({ webhook_id: 'flaky', status: 'pending', attempts: 1, last_error: 'database went away' });

      expect(await processInbox(context.app.db, { brandId: shop.brandId })).toEqual({ done: 0, retrying: 0, failed: 0 }); // not due for 10 s
      expect(await processInbox(context.app.db, { now: inOneDay(), brandId: shop.brandId })).toMatchObject({ done: 1 });
      expect(await inboxRow(context.app.db, shop.brandId, 'flaky')).toMatchObject({ status: 'done', attempts: 2, last_error: null });
      expect(await conversionOf(shop.brandId, '450789469')).toMatchObject({ order_value: '598.94' });
    } finally {
      TOPIC_HANDLERS['orders/paid'] = original;
    }
  });

  it('a payload that can never be processed is marked failed at once; --retry puts it back in line', async () => {
    const shop = await premierShopWithTenoff();
    const broken = variant(ORDER_WITH_TENOFF, (order) => (order.current_total_price_set.shop_money.amount = 'lots'));
    await sendWebhook(context.app, broken, { topic: 'orders/paid', shop: shop.shop, webhookId: 'broken' });
    expect(await processInbox(context.app.db, { brandId: shop.brandId })).toMatchObject({ failed: 1 });
    expect(await inboxRow(context.app.db, shop.brandId, 'broken')).toMatchObject({ status: 'failed', last_error: 'current_total_price_set.shop_money.amount is not an amount: "lots"' });

    const cli = await referrals(context.app, ['shopify', 'inbox', '--brand', shop.brandId, '--retry', 'broken', '--json']);
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ retried: 'broken', processed: { failed: 1 } });
    expect(await inboxRow(context.app.db, shop.brandId, 'broken')).toMatchObject({ status: 'failed', attempts: 2 });
  });

  it('a crash between acknowledgement and processing loses nothing: the next worker processes the delivery', async () => {
    const shop = await premierShopWithTenoff();
    await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: shop.shop, webhookId: 'before-crash' });
    // The process dies here. A new one starts on the same database: its webhook route and its
    // worker share one bell, as the connector wires them; no sweep within the test, so only the
    // worker's first pass and the bell can process anything.
    const bell = new InboxBell();
    const restarted = await startTestApp({}, context.app.db, [{ routes: () => shopifyRoutes(loadShopifySettings().app, bell) }]);
    const worker = startShopifyInboxWorker(
      { db: context.app.db, config: context.app.config, logger: pino({ level: 'silent' }), bell },
      { brandId: shop.brandId, sweepMs: 600_000 },
    );
    try {
      await waitFor(async () => (await inboxRow(context.app.db, shop.brandId, 'before-crash'))?.status === 'done');
      expect(await conversionOf(shop.brandId, '450789469')).toMatchObject({ referral_code: 'TENOFF' });

      // While a worker runs, a new delivery is processed right after it is acknowledged.
      const refund = await sendWebhook(restarted, refundOf('450789469', '509562969', '50.00'), { topic: 'refunds/create', shop: shop.shop, webhookId: 'kicked' });
      expect(refund.status).toBe(200);
      await waitFor(async () => (await inboxRow(context.app.db, shop.brandId, 'kicked'))?.status === 'done');
      expect(await conversionOf(shop.brandId, '450789469')).toMatchObject({ status: 'partial_refund' });
    } finally {
      await worker.stop();
    }
  });

  it('is not rate limited per IP: Shopify\'s bursts all get through', async () => {
    const shop = await premierShopWithTenoff();
    const strict = await startTestApp({ rateLimits: { visit: 1, claim: 1, conversion: 1, refund: 1, eligibility: 1, convert: 1, rewards: 1, review: 1, signIn: 1, join: 1 } }, context.app.db);
    const statuses = [];
    for (let index = 0; index < 5; index += 1) {
      statuses.push((await sendWebhook(strict, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: shop.shop })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(await context.app.db('shopify_inbox').where({ brand_id: shop.brandId })).toHaveLength(5);
  });

  it('a delivery for an unknown shop is acknowledged but not kept; missing headers are named', async () => {
    const unknown = await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: 'nobody-here.myshopify.com' });
    expect(unknown.status).toBe(200);
    expect(unknown.body.data).toEqual({ accepted: false, reason: 'unknown shop nobody-here.myshopify.com' });
    const shop = await premierShopWithTenoff();
    const noTopic = await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: '', shop: shop.shop });
    expect(noTopic.status).toBe(400);
    expect(noTopic.body.error).toBe('X-Shopify-Topic is required');
    expect(await context.app.db('shopify_inbox').where({ brand_id: shop.brandId })).toEqual([]);
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

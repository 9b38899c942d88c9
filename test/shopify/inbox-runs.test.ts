import { processInbox } from '../../connectors/shopify/process-inbox';
import { updateBrand } from '../../core/brands/brand';
import { isEmbedded } from '../../core/db/create-database';
import { rewardBalance } from '../../core/ledger/reward-ledger';
import { givenAdvocate } from '../helpers/fixtures';
import { exactNumber, fixtureText, inboxRow, installApp, sendWebhook, setUpShopifyTests, variant } from './shopify-test-kit';

// Consecutive orders/paid deliveries of one inbox batch are a run: their brands, bodies and
// look-ups are read once for the run (connectors/shopify/delivery-runs.ts), and an earlier order
// of the run changes what a later one finds, as in the REST batcher. One lane here: two lanes
// claiming at the same moment may split three deliveries between two runs.

const context = setUpShopifyTests();
const ORDER_WITH_TENOFF = fixtureText('order-with-discount-code.shopify-api-fixture.json');

/** The fixture's order (discount code TENOFF, 598.94 paid) as another customer's order. */
const orderOf = (orderId: string, customer: number) =>
  variant(ORDER_WITH_TENOFF, (order) => {
    order.id = exactNumber(orderId);
    order.email = order.contact_email = order.customer.email = `buyer-${customer}@example.com`;
    order.customer.id = exactNumber(String(300_000_000 + customer));
    order.refunds = [];
  });

/** A premier shop paying 10 per referral at once, holding an advocate's third order within an hour for review. */
async function shopWithVelocityLimit() {
  const installed = await installApp(context.app, context.fake, undefined, 'premier');
  await updateBrand(context.app.db, installed.brandId, {
    reward_type: 'fixed', reward_value: 10, reward_hold_days: 0, fraud_velocity: true, fraud_max_per_advocate_hour: 2,
    reward_fulfilment: 'payout', // the reward stays in the balance (not issued as a code)
  });
  const advocate = await givenAdvocate(context.app.db, installed.brandId, { code: 'TENOFF' });
  return { ...installed, advocate };
}

describe('orders/paid deliveries processed as one run', () => {
  const send = async (shop: { shop: string }, deliveries: ReadonlyArray<readonly [string, string]>) => {
    for (const [webhookId, body] of deliveries) {
      expect((await sendWebhook(context.app, body, { topic: 'orders/paid', shop: shop.shop, webhookId })).status).toBe(200);
    }
  };
  const row = (brandId: string, webhookId: string) => inboxRow(context.app.db, brandId, webhookId);
  /** Processes the brand's three deliveries (one lane), returning the SQL of every statement it ran. */
  const processCountingStatements = async (brandId: string) => {
    const statements: string[] = [];
    const count = (query: { sql: string }) => statements.push(query.sql);
    context.app.db.on('query', count);
    try {
      expect(await processInbox(context.app.db, { brandId, concurrency: 1 })).toEqual({ done: 3, retrying: 0, failed: 0 });
    } finally {
      context.app.db.off('query', count);
    }
    return statements;
  };

  it('reads the run once, and a later order finds what an earlier one wrote: the third within the hour is held by the velocity rule', async () => {
    const shop = await shopWithVelocityLimit();
    await send(shop, [
      ['run-a', orderOf('5100000000001', 1)],
      ['run-b', orderOf('5100000000002', 2)],
      ['run-c', orderOf('5100000000003', 3)],
    ]);

    const statements = await processCountingStatements(shop.brandId);
    // The run read its brand once, not once per delivery (the embedded database takes one delivery per batch).
    expect(statements.filter((sql) => /from "brands"/.test(sql))).toHaveLength(isEmbedded(context.app.db) ? 3 : 1);

    for (const webhookId of ['run-a', 'run-b', 'run-c']) {
      expect(await row(shop.brandId, webhookId)).toMatchObject({ status: 'done', attempts: 1, outcome: 'conversion_recorded' });
    }
    // Each customer's redeemed code became their own claim, converted by their order.
    const claims = await context.app.db('claims').where({ brand_id: shop.brandId }).orderBy('order_id').select('order_id', 'status', 'email');
    expect(claims).toEqual([
      { order_id: '5100000000001', status: 'converted', email: 'buyer-1@example.com' },
      { order_id: '5100000000002', status: 'converted', email: 'buyer-2@example.com' },
      { order_id: '5100000000003', status: 'converted', email: 'buyer-3@example.com' },
    ]);
    const reviews = await context.app.db('referral_reviews').where({ brand_id: shop.brandId }).select('status', 'reasons');
    expect(reviews).toEqual([{ status: 'open', reasons: [{ code: 'velocity', detail: 'more than 2 conversions for this advocate within an hour' }] }]);
    expect((await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).balance).toBe(20);
  });

  it('writes the new conversions of a run in one statement when the shoppers carried the code (no discount code to claim), the third held for review', async () => {
    const shop = await shopWithVelocityLimit();
    const carried = (orderId: string, customer: number) =>
      variant(orderOf(orderId, customer), (order) => {
        order.discount_codes = [];
        order.discount_applications = [];
        order.note_attributes = [{ name: 'ref', value: 'TENOFF' }];
      });
    await send(shop, [
      ['carried-a', carried('5500000000001', 1)],
      ['carried-b', carried('5500000000002', 2)],
      ['carried-c', carried('5500000000003', 3)],
    ]);

    const statements = await processCountingStatements(shop.brandId);
    expect(statements.filter((sql) => /INSERT INTO conversions/i.test(sql))).toHaveLength(isEmbedded(context.app.db) ? 3 : 1);

    for (const webhookId of ['carried-a', 'carried-b', 'carried-c']) {
      expect(await row(shop.brandId, webhookId)).toMatchObject({ status: 'done', attempts: 1, outcome: 'conversion_recorded' });
    }
    const conversions = await context.app.db('conversions').where({ brand_id: shop.brandId }).orderBy('order_id').select('order_id', 'claim_id', 'referrer_reward_paid');
    expect(conversions).toEqual([
      { order_id: '5500000000001', claim_id: null, referrer_reward_paid: '10.00' },
      { order_id: '5500000000002', claim_id: null, referrer_reward_paid: '10.00' },
      { order_id: '5500000000003', claim_id: null, referrer_reward_paid: '10.00' },
    ]);
    const reviews = await context.app.db('referral_reviews').where({ brand_id: shop.brandId }).select('status', 'reasons');
    expect(reviews).toEqual([{ status: 'open', reasons: [{ code: 'velocity', detail: 'more than 2 conversions for this advocate within an hour' }] }]);
    expect((await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).balance).toBe(20);
  });

  it('fails a bad payload on its own and records its neighbours once each, though their first attempt was rolled back with it', async () => {
    const shop = await shopWithVelocityLimit();
    await send(shop, [
      ['ok-1', orderOf('5300000000001', 1)],
      ['bad', variant(orderOf('5300000000009', 9), (order) => (order.current_total_price_set.shop_money.amount = 'not money'))],
      ['ok-2', orderOf('5300000000002', 2)],
    ]);

    expect(await processInbox(context.app.db, { brandId: shop.brandId, concurrency: 1 })).toEqual({ done: 2, retrying: 0, failed: 1 });
    expect(await row(shop.brandId, 'ok-1')).toMatchObject({ status: 'done', attempts: 1, outcome: 'conversion_recorded' });
    expect(await row(shop.brandId, 'ok-2')).toMatchObject({ status: 'done', attempts: 1, outcome: 'conversion_recorded' });
    expect(await row(shop.brandId, 'bad')).toMatchObject({ status: 'failed', attempts: 1, last_error: expect.stringContaining('current_total_price_set') });
    const conversions = await context.app.db('conversions').where({ brand_id: shop.brandId }).orderBy('order_id').select('order_id', 'referrer_reward_paid');
    expect(conversions).toEqual([
      { order_id: '5300000000001', referrer_reward_paid: '10.00' },
      { order_id: '5300000000002', referrer_reward_paid: '10.00' },
    ]);
    expect(await context.app.db('claims').where({ brand_id: shop.brandId })).toHaveLength(2);
    expect((await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).balance).toBe(20);
  });

  it('answers an order delivered again (another webhook id) as a duplicate, in the next run, crediting nothing more', async () => {
    const shop = await shopWithVelocityLimit();
    const order = orderOf('5200000000001', 1);
    expect((await sendWebhook(context.app, order, { topic: 'orders/paid', shop: shop.shop, webhookId: 'first' })).status).toBe(200);
    expect((await sendWebhook(context.app, orderOf('5200000000002', 2), { topic: 'orders/paid', shop: shop.shop, webhookId: 'other' })).status).toBe(200);
    expect((await sendWebhook(context.app, order, { topic: 'orders/paid', shop: shop.shop, webhookId: 'again' })).status).toBe(200);

    expect(await processInbox(context.app.db, { brandId: shop.brandId, concurrency: 1 })).toEqual({ done: 3, retrying: 0, failed: 0 });
    expect(await inboxRow(context.app.db, shop.brandId, 'first')).toMatchObject({ status: 'done', outcome: 'conversion_recorded' });
    expect(await inboxRow(context.app.db, shop.brandId, 'other')).toMatchObject({ status: 'done', outcome: 'conversion_recorded' });
    expect(await inboxRow(context.app.db, shop.brandId, 'again')).toMatchObject({ status: 'done', outcome: 'duplicate_order' });
    expect(await context.app.db('conversions').where({ brand_id: shop.brandId })).toHaveLength(2);
    expect((await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).balance).toBe(20);
  });
});

describe('orders/paid deliveries acknowledged together', () => {
  it('keeps each delivery once when the same webhook id arrives twice at once, and acknowledges every one', async () => {
    const shop = await shopWithVelocityLimit();
    const [first, again, other] = await Promise.all([
      sendWebhook(context.app, orderOf('5400000000001', 1), { topic: 'orders/paid', shop: shop.shop, webhookId: 'twice' }),
      sendWebhook(context.app, orderOf('5400000000001', 1), { topic: 'orders/paid', shop: shop.shop, webhookId: 'twice' }),
      sendWebhook(context.app, orderOf('5400000000002', 2), { topic: 'orders/paid', shop: shop.shop, webhookId: 'once' }),
    ]);
    expect([first!.status, again!.status, other!.status]).toEqual([200, 200, 200]);
    expect([first!.body.data.duplicate, again!.body.data.duplicate].sort()).toEqual([false, true]);
    expect(other!.body.data).toEqual({ accepted: true, duplicate: false });
    const kept = await context.app.db('shopify_inbox').where({ brand_id: shop.brandId }).orderBy('webhook_id').select('webhook_id', 'order_id', 'status');
    expect(kept).toEqual([
      { webhook_id: 'once', order_id: '5400000000002', status: 'pending' },
      { webhook_id: 'twice', order_id: '5400000000001', status: 'pending' },
    ]);
  });
});

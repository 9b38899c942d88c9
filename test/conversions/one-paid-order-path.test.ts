import type { Knex } from 'knex';
import { processDeliveryNow, processInbox } from '../../connectors/shopify/process-inbox';
import { updateBrand } from '../../core/brands/brand';
import { rewardBalance } from '../../core/ledger/reward-ledger';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { fixtureText, inboxRow, installApp, sendWebhook, setUpShopifyTests } from '../shopify/shopify-test-kit';

const context = setUpShopifyTests();

const ORDER_WITH_TENOFF = fixtureText('order-with-discount-code.shopify-api-fixture.json');

/** How many statements `work` sent that name the referral_codes table (knex's 'query' event). */
async function codeLookupsDuring(db: Knex, work: () => Promise<unknown>): Promise<number> {
  let lookups = 0;
  const count = (query: { sql: string }) => {
    if (/\breferral_codes\b/.test(query.sql)) lookups += 1;
  };
  db.on('query', count);
  try {
    await work();
  } finally {
    db.removeListener('query', count);
  }
  return lookups;
}

describe('one paid-order path for REST, Shopify and Medusa', () => {
  it('resolves the referral code once for a POST /track/conversion naming several candidate codes', async () => {
    const { db, http } = context.app;
    const brand = await givenBrand(db);
    const advocate = await givenAdvocate(db, brand.brandId);
    let response: { status: number; body: { data: Record<string, unknown> } } | undefined;
    const lookups = await codeLookupsDuring(db, async () => {
      response = await http.post('/api/v1/track/conversion').set(brand.headers).send({
        email: 'several@example.com',
        order_id: uniqueOrderId(),
        order_value: 90,
        coupons_applied: [{ code: 'SUMMER10', discount_amount: 5 }, { code: 'WELCOME', discount_amount: 1 }, { code: advocate.code, discount_amount: 10 }],
      });
    });
    expect(response!.status).toBe(201);
    expect(response!.body.data).toMatchObject({ referral_code: advocate.code, discount_applied: 16 });
    expect(lookups).toBe(1);
  });

  it('resolves the referral code once for a Shopify orders/paid that redeems it, recording its claim and conversion', async () => {
    const { db } = context.app;
    const shop = await installApp(context.app, context.fake, undefined, 'premier');
    await updateBrand(db, shop.brandId, { reward_type: 'fixed', reward_value: 10, reward_hold_days: 0 });
    const advocate = await givenAdvocate(db, shop.brandId, { code: 'TENOFF' });
    await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: shop.shop, webhookId: 'paid-once' });

    const lookups = await codeLookupsDuring(db, () => processInbox(db, { brandId: shop.brandId }));
    expect(lookups).toBe(1);
    expect(await inboxRow(db, shop.brandId, 'paid-once')).toMatchObject({ status: 'done', outcome: 'conversion_recorded' });
    const conversion = await db('conversions').where({ brand_id: shop.brandId, order_id: '450789469' }).first();
    expect(conversion).toMatchObject({ referral_code: 'TENOFF', referrer_reward_paid: '10.00' });
    expect(await db('claims').where({ brand_id: shop.brandId })).toEqual([
      expect.objectContaining({ claim_id: conversion.claim_id, status: 'converted', source: 'shopify', order_id: '450789469' }),
    ]);
    // An installed shop hands rewards out as codes (reward_fulfilment coupon): the 10.00 is issued, not left in the balance.
    expect(await rewardBalance(db, shop.brandId, advocate.advocateId)).toMatchObject({ credited: 10, issued: 10, balance: 0 });
  });

  it('does not record an orders/paid still queued when the shop uninstalled the app', async () => {
    const { db } = context.app;
    const shop = await installApp(context.app, context.fake, undefined, 'premier');
    await givenAdvocate(db, shop.brandId, { code: 'TENOFF' });
    await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: shop.shop, webhookId: 'paid-then-gone' });
    const uninstall = JSON.stringify({ id: 548380009, name: 'Super Toys', myshopify_domain: shop.shop });
    await sendWebhook(context.app, uninstall, { topic: 'app/uninstalled', shop: shop.shop, webhookId: 'gone' });
    expect(await processDeliveryNow(db, { brand_id: shop.brandId, webhook_id: 'gone' })).toMatchObject({ status: 'done', outcome: 'uninstalled' });

    expect(await processInbox(db, { brandId: shop.brandId })).toMatchObject({ done: 0, failed: 1 });
    expect(await inboxRow(db, shop.brandId, 'paid-then-gone')).toMatchObject({
      status: 'failed',
      last_error: 'this brand is not active (the app was uninstalled)',
    });
    expect(await db('conversions').where({ brand_id: shop.brandId })).toEqual([]);
    expect(await db('claims').where({ brand_id: shop.brandId })).toEqual([]);
  });
});

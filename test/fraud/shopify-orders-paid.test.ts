import { updateBrand } from '../../core/brands/brand';
import { rewardBalance } from '../../core/ledger/reward-ledger';
import { givenAdvocate } from '../helpers/fixtures';
import { conversionOf, deliver } from '../shopify/sales-shop';
import { fixtureText, installApp, setUpShopifyTests, variant } from '../shopify/shopify-test-kit';

const context = setUpShopifyTests();

// Order #1001 (bob.norman@mail.example.com, customer 207119551, discount code TENOFF): fixtures/shopify/README.md.
const ORDER = fixtureText('order-with-discount-code.shopify-api-fixture.json');

/** An installed shop paying 10 per referral, whose advocate (email as given) owns TENOFF. */
async function shopWithAdvocate(email?: string) {
  const installed = await installApp(context.app, context.fake, undefined, 'premier');
  await updateBrand(context.app.db, installed.brandId, { reward_type: 'fixed', reward_value: 10, reward_hold_days: 0, reward_fulfilment: 'payout' }); // the reward stays in the balance (not issued as a code)
  const advocate = await givenAdvocate(context.app.db, installed.brandId, { code: 'TENOFF', ...(email ? { email } : {}) });
  return { ...installed, advocate };
}

const reviewsOf = (brandId: string) => context.app.db('referral_reviews').where({ brand_id: brandId });

describe('Shopify orders/paid through the fraud rules', () => {
  it('holds an order paid by the advocate under a +tag of their own address: recorded, not credited, reviewed', async () => {
    const shop = await shopWithAdvocate('Bob.Norman+referrals@mail.example.com');
    expect(await deliver(context, shop, 'orders/paid', ORDER)).toMatchObject({ outcome: 'conversion_recorded' });
    const conversion = await conversionOf(context, shop.brandId, '450789469');
    // The fixture's browser_ip is Shopify's 0.0.0.0 placeholder: no IP.
    expect(conversion).toMatchObject({ status: 'completed', referrer_reward_paid: '10.00', source: 'shopify', customer_id: '207119551', customer_ip: null });
    const [review] = await reviewsOf(shop.brandId);
    expect(review).toMatchObject({ conversion_id: conversion.conversion_id, status: 'open', reasons: [{ code: 'self_referral', detail: expect.stringContaining('email') }] });
    expect((await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).balance).toBe(0);
  });

  it('credits the same order referred by someone else, and keeps the shopper\'s browser IP', async () => {
    const shop = await shopWithAdvocate();
    const order = variant(ORDER, (payload) => {
      payload.browser_ip = '203.0.113.77';
      payload.refunds = [];
    });
    expect(await deliver(context, shop, 'orders/paid', order)).toMatchObject({ outcome: 'conversion_recorded' });
    const stored = await context.app.db('conversions').where({ brand_id: shop.brandId, order_id: '450789469' }).select(context.app.db.raw('host(customer_ip) AS ip'), 'customer_id').first();
    expect(stored).toEqual({ ip: '203.0.113.77', customer_id: '207119551' });
    expect(await reviewsOf(shop.brandId)).toHaveLength(0);
    expect((await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).balance).toBe(10);
  });

  it('holds an order whose Shopify customer id is one the advocate ordered with', async () => {
    const shop = await shopWithAdvocate('ann.shopper@example.com');
    // Ann's own earlier order under the same Shopify customer account, referred by another advocate.
    const other = await givenAdvocate(context.app.db, shop.brandId, { code: 'FRIEND5' });
    const own = variant(ORDER, (payload) => {
      payload.id = 450789001;
      payload.email = payload.contact_email = payload.customer.email = 'ann.shopper@example.com';
      payload.discount_codes = [{ code: 'FRIEND5', amount: '10.00', type: 'fixed_amount' }];
      payload.discount_applications = [{ ...payload.discount_applications[0], code: 'FRIEND5' }];
    });
    await deliver(context, shop, 'orders/paid', own);
    expect((await rewardBalance(context.app.db, shop.brandId, other.advocateId)).balance).toBe(10);

    const friend = variant(ORDER, (payload) => {
      payload.id = 450789002;
      payload.email = payload.contact_email = payload.customer.email = 'friend@example.com';
    });
    await deliver(context, shop, 'orders/paid', friend);
    const [review] = await reviewsOf(shop.brandId);
    expect(review.reasons).toEqual([{ code: 'self_referral', detail: 'customer_id is one the advocate ordered with' }]);
    expect((await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).balance).toBe(0);
  });
});

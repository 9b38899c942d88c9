import { rewardBalance } from '../../core/ledger/reward-ledger';
import { conversionOf, deliver, refundsOf, shopWithTenoff } from './sales-shop';
import { fixtureText, referrals, setUpShopifyTests, variant } from './shopify-test-kit';

const context = setUpShopifyTests();

const ORDER_WITH_TENOFF = fixtureText('order-with-discount-code.shopify-api-fixture.json');
// A paid order as orders/paid brings it: #1001 before its refunds (598.94 USD, TENOFF).
const PAID_ORDER = fixtureText('orders-paid.usd-shop-eur-buyer.json');
const ORDERS_PAID_SAMPLE = fixtureText('orders-paid.webhook-sample.json');
const CANCELLED_SAMPLE = fixtureText('orders-cancelled.webhook-schemas-2026-07.json');
const REFUND_SAMPLE = fixtureText('refunds-create.webhook-sample.json');

/** Shopify's sample test order (test: true, 398.00 after edits), carrying the referral code TENOFF. */
const TEST_ORDER = variant(ORDERS_PAID_SAMPLE, (order) => {
  order.id = 820982911946154;
  order.discount_codes = [{ code: 'TENOFF', amount: '20.00', type: 'fixed_amount' }];
});

function cancelled(financialStatus: string): string {
  return variant(CANCELLED_SAMPLE, (order) => {
    order.id = 450789469;
    order.financial_status = financialStatus;
  });
}

describe('What counts as a sale (Shopify)', () => {
  it('ignores a test order unless the brand counts test orders (`referrals brand settings --count-test-orders yes`)', async () => {
    const shop = await shopWithTenoff(context);
    expect(await deliver(context, shop, 'orders/paid', TEST_ORDER)).toMatchObject({
      status: 'done',
      outcome: 'ignored: a test order (the brand does not count test orders)',
    });
    expect(await conversionOf(context, shop.brandId, '820982911946154')).toBeUndefined();

    const settings = await referrals(context.app, ['brand', 'settings', '--brand', shop.brandId, '--count-test-orders', 'yes', '--json']);
    expect(settings.code).toBe(0);
    expect(JSON.parse(settings.stdout).brand).toMatchObject({ count_test_orders: true });

    expect(await deliver(context, shop, 'orders/paid', TEST_ORDER)).toMatchObject({ outcome: 'conversion_recorded' });
    const conversion = await conversionOf(context, shop.brandId, '820982911946154');
    expect(conversion).toMatchObject({ order_value: '398.00', referral_code: 'TENOFF' });
    expect(conversion.metadata).toMatchObject({ test: true });

    const off = await referrals(context.app, ['brand', 'settings', '--brand', shop.brandId, '--count-test-orders', 'maybe']);
    expect(off.code).not.toBe(0);
    expect(off.stderr).toContain('--count-test-orders must be one of yes, no');
  });

  it('leaves gift cards out of the commissionable amount', async () => {
    const shop = await shopWithTenoff(context, { reward_type: 'percentage', reward_value: 10 });
    const withGiftCard = variant(PAID_ORDER, (order) => {
      order.line_items[2].gift_card = true;
      order.line_items[2].title = 'Gift card';
    });
    await deliver(context, shop, 'orders/paid', withGiftCard);
    const conversion = await conversionOf(context, shop.brandId, '450789469');
    // 598.94 − the gift card line's 199.00 − 3.33 discount = 403.27; 10 % of it.
    expect(conversion).toMatchObject({ order_value: '403.27', order_subtotal: '391.33', referrer_reward_paid: '40.33' });
    expect(conversion.metadata).toMatchObject({ gift_cards_excluded: 195.67 });
    const lines = await context.app.db('conversion_products').where({ brand_id: shop.brandId, conversion_id: conversion.conversion_id });
    expect(lines.map((line: Record<string, string>) => line.sku).sort()).toEqual(['IPOD2008GREEN', 'IPOD2008RED']);
  });

  it('takes the value from the current_* amounts after an edit, before the refunds the body shows', async () => {
    const shop = await shopWithTenoff(context);
    await deliver(context, shop, 'orders/paid', ORDER_WITH_TENOFF);
    // current_total_price 199.65 plus its refund of two lines (195.66 + 3.98 + 195.67 + 3.98).
    expect(await conversionOf(context, shop.brandId, '450789469')).toMatchObject({ order_value: '598.94' });

    const edited = await shopWithTenoff(context);
    const removedOneLine = variant(PAID_ORDER, (order) => {
      order.line_items[1].current_quantity = 0;
      order.current_total_price_set.shop_money.amount = '399.29';
      order.current_subtotal_price_set.shop_money.amount = '391.33';
    });
    await deliver(context, edited, 'orders/paid', removedOneLine);
    expect(await conversionOf(context, edited.brandId, '450789469')).toMatchObject({ order_value: '399.29', order_subtotal: '391.33' });
  });

  it('a paid order cancelled after a partial refund reverses what was not refunded, once', async () => {
    const shop = await shopWithTenoff(context);
    await deliver(context, shop, 'orders/paid', PAID_ORDER);
    const partial = variant(REFUND_SAMPLE, (refund) => {
      refund.id = 509562969;
      refund.order_id = 450789469;
      refund.transactions = [{ id: 179259969, kind: 'refund', status: 'success', amount: '209.00', currency: 'USD', gateway: 'bogus' }];
    });
    await deliver(context, shop, 'refunds/create', partial);

    expect(await deliver(context, shop, 'orders/cancelled', cancelled('partially_refunded'))).toMatchObject({ status: 'done', outcome: 'refund_recorded' });
    expect(await conversionOf(context, shop.brandId, '450789469')).toMatchObject({ status: 'refunded', refunded_total: '598.94' });
    expect(await refundsOf(context, shop.brandId)).toMatchObject([
      { refund_id: '509562969', amount: '209.00' },
      { refund_id: 'cancel:450789469', amount: '389.94', status_after: 'refunded' },
    ]);
    expect(await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).toMatchObject({ balance: 0 });

    // The cancellation again, and the refund of the rest that Shopify sends with it: nothing more.
    expect(await deliver(context, shop, 'orders/cancelled', cancelled('refunded'))).toMatchObject({ status: 'done' });
    const rest = variant(partial, (refund) => {
      refund.id = 509562971;
      refund.transactions = [{ id: 179259971, kind: 'refund', status: 'success', amount: '389.94', currency: 'USD', gateway: 'bogus' }];
    });
    expect(await deliver(context, shop, 'refunds/create', rest)).toMatchObject({ status: 'done', outcome: 'ignored: nothing left to refund (cancelled or refunded already)' });
    expect(await refundsOf(context, shop.brandId)).toHaveLength(2);
    expect(await conversionOf(context, shop.brandId, '450789469')).toMatchObject({ refunded_total: '598.94' });
  });

  it('an order cancelled before it was paid (voided, Shopify\'s sample) changes nothing', async () => {
    const shop = await shopWithTenoff(context);
    expect(await deliver(context, shop, 'orders/cancelled', CANCELLED_SAMPLE)).toMatchObject({ status: 'done', outcome: 'ignored: cancelled before it was paid' });
    expect(await refundsOf(context, shop.brandId)).toEqual([]);
  });

  it('attributes an order without an email by its referral code and records the customer it names', async () => {
    const shop = await shopWithTenoff(context);
    const emailless = variant(PAID_ORDER, (order) => {
      order.email = null;
      order.contact_email = null;
      order.customer.email = null;
      order.phone = '+16135550142';
    });
    expect(await deliver(context, shop, 'orders/paid', emailless)).toMatchObject({ outcome: 'conversion_recorded' });
    const conversion = await conversionOf(context, shop.brandId, '450789469');
    expect(conversion).toMatchObject({ email: null, email_normalized: null, customer_name: 'Bob Norman', referral_code: 'TENOFF', order_value: '598.94', claim_id: null });
    expect(conversion.metadata).toMatchObject({ customer: { id: '207119551', phone: '+16135550142' } });
    expect(await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).toMatchObject({ balance: 10 });
  });

  it('the REST API still requires an email', async () => {
    const shop = await shopWithTenoff(context);
    const key = await referrals(context.app, ['key', 'create', '--brand', shop.brandId, '--json']);
    const response = await context.app.http
      .post('/api/v1/track/conversion')
      .set({ 'X-API-Key': JSON.parse(key.stdout).api_key, 'X-Brand-ID': shop.brandId })
      .send({ order_id: 'rest-1', order_value: 10, referral_code: 'TENOFF' });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain('email');
  });
});

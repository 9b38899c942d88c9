import { findBrand } from '../../core/brands/brand';
import { rewardBalance } from '../../core/ledger/reward-ledger';
import { graphqlLine, graphqlOrder } from '../shopify/admin-order-nodes';
import { conversionOf, deliver, refundsOf, shopWithTenoff } from '../shopify/sales-shop';
import { fixtureText, referrals, setUpShopifyTests, variant } from '../shopify/shopify-test-kit';

const context = setUpShopifyTests();

// Order #1001 of a Kuwaiti shop (fixtures/shopify/README.md): three iPods at 4.115 KWD, TENOFF takes
// 0.335 off each, tax 0.335 each: 12.345 KWD. The refund gives back the first one: 3.780 + 0.335 = 4.115 KWD.
const KWD_ORDER = fixtureText('orders-paid.kwd-shop.json');
const KWD_REFUND = fixtureText('refunds-create.kwd-shop.json');

/** The same order in a Japanese shop: whole yen (1,500 ¥ a line, 100 ¥ off each, tax 120 ¥ each). */
const JPY_ORDER = variant(KWD_ORDER, (order) => {
  const yen = (amount: string) => ({ shop_money: { amount, currency_code: 'JPY' }, presentment_money: { amount, currency_code: 'JPY' } });
  const totals: Record<string, string> = { subtotal_price: '4200', total_discounts: '300', total_price: '4560', total_tax: '360', total_line_items_price: '4500' };
  for (const [field, amount] of Object.entries(totals)) {
    order[field] = amount;
    order[`${field}_set`] = yen(amount);
    if (`current_${field}` in order) {
      order[`current_${field}`] = amount;
      order[`current_${field}_set`] = yen(amount);
    }
  }
  Object.assign(order, { currency: 'JPY', presentment_currency: 'JPY', total_shipping_price_set: yen('0') });
  order.discount_codes[0].amount = '300';
  for (const line of order.line_items) {
    Object.assign(line, { price: '1500', price_set: yen('1500') });
    line.tax_lines[0].price_set = yen('120');
    line.discount_allocations[0] = { ...line.discount_allocations[0], amount: '100', amount_set: yen('100') };
  }
});

describe('a Shopify shop selling in a 3-decimal currency (KWD) counts to the fils', () => {
  it('records orders/paid exactly: 12.345 KWD, lines of 4.115, the reward to the fils', async () => {
    const shop = await shopWithTenoff(context, { reward_type: 'percentage', reward_value: 7 }, 'KWD');
    expect(await findBrand(context.app.db, shop.brandId)).toMatchObject({ currency: 'KWD' });
    expect(await deliver(context, shop, 'orders/paid', KWD_ORDER)).toMatchObject({ outcome: 'conversion_recorded' });
    const conversion = await conversionOf(context, shop.brandId, '450789469');
    // 7 % of 12.345 KWD = 0.86415 → 0.864 (in cents it would have been 7 % of 12.35 = 0.865).
    expect(conversion).toMatchObject({
      order_value: '12.345',
      order_subtotal: '11.340',
      discount_applied: '1.005',
      currency: 'KWD',
      exchange_rate: null,
      referral_code: 'TENOFF',
      referrer_reward_paid: '0.864',
    });
    expect(conversion.metadata).toMatchObject({ presentment_currency: 'KWD', presentment_total: 12.345, total_tax: 1.005 });
    expect(conversion.coupons_applied).toEqual([{ code: 'TENOFF', discount_amount: 1.005 }]);
    const lines = await context.app.db('conversion_products').where({ brand_id: shop.brandId, conversion_id: conversion.conversion_id }).orderBy('line_no');
    expect(lines.map((line: Record<string, string>) => [line.price, line.line_total])).toEqual([
      ['4.115', '3.780'],
      ['4.115', '3.780'],
      ['4.115', '3.780'],
    ]);
    expect(await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).toMatchObject({ currency: 'KWD', balance: 0.864 });
  });

  it('records refunds/create of one line as 4.115 KWD and reverses the reward to the fils, once', async () => {
    const shop = await shopWithTenoff(context, { reward_type: 'percentage', reward_value: 7 }, 'KWD');
    await deliver(context, shop, 'orders/paid', KWD_ORDER);
    expect(await deliver(context, shop, 'refunds/create', KWD_REFUND)).toMatchObject({ status: 'done', outcome: 'refund_recorded' });
    expect(await conversionOf(context, shop.brandId, '450789469')).toMatchObject({ status: 'partial_refund', refunded_total: '4.115' });
    const [refund] = await refundsOf(context, shop.brandId);
    expect(refund).toMatchObject({ refund_id: '509562970', amount: '4.115', status_after: 'partial_refund' });
    expect(refund.metadata).toMatchObject({ transaction_ids: ['179259970'], presentment_currency: 'KWD', presentment_amount: 4.115 });
    const kept = await context.app.db('shopify_refund_transactions').where({ brand_id: shop.brandId, transaction_id: '179259970' }).first();
    expect(kept).toMatchObject({ shop_amount: '4.115', presentment_amount: '4.115', presentment_currency: 'KWD', counted_by: '509562970' });
    // 0.864 × 4.115 / 12.345 = 0.288 reversed: 0.576 left.
    expect(await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).toMatchObject({ currency: 'KWD', balance: 0.576 });

    expect(await deliver(context, shop, 'refunds/create', KWD_REFUND)).toMatchObject({ outcome: 'duplicate_refund' });
    expect(await conversionOf(context, shop.brandId, '450789469')).toMatchObject({ refunded_total: '4.115' });
    expect(await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).toMatchObject({ balance: 0.576 });
  });

  it('refunds the rest in fils: a second refund of 8.230 KWD makes the order refunded and takes back all of the reward', async () => {
    const shop = await shopWithTenoff(context, { reward_type: 'percentage', reward_value: 7 }, 'KWD');
    await deliver(context, shop, 'orders/paid', KWD_ORDER);
    await deliver(context, shop, 'refunds/create', KWD_REFUND);
    const rest = variant(KWD_REFUND, (refund) => {
      const kwd = (amount: string) => ({ shop_money: { amount, currency_code: 'KWD' }, presentment_money: { amount, currency_code: 'KWD' } });
      refund.id = 509562971;
      refund.refund_line_items = [518995019, 703073504].map((lineItemId, index) => ({
        ...refund.refund_line_items[0],
        id: 104689540 + index,
        line_item_id: lineItemId,
        subtotal_set: kwd('3.780'),
        total_tax_set: kwd('0.335'),
      }));
      refund.transactions[0] = { ...refund.transactions[0], id: 179259971, amount: '8.230' };
    });
    expect(await deliver(context, shop, 'refunds/create', rest)).toMatchObject({ outcome: 'refund_recorded' });
    expect(await conversionOf(context, shop.brandId, '450789469')).toMatchObject({ status: 'refunded', refunded_total: '12.345' });
    expect((await refundsOf(context, shop.brandId)).map((refund) => [refund.refund_id, refund.amount])).toEqual([
      ['509562970', '4.115'],
      ['509562971', '8.230'],
    ]);
    expect(await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).toMatchObject({ balance: 0 });
  });
});

describe('shopify reconcile of a KWD shop', () => {
  it('backfills an order from the Admin API to the fils, the code\'s discount summed in fils', async () => {
    const shop = await shopWithTenoff(context, { reward_type: 'percentage', reward_value: 7 }, 'KWD');
    const kwd = (amount: string) => ({ shopMoney: { amount, currencyCode: 'KWD' }, presentmentMoney: { amount, currencyCode: 'KWD' } });
    const line = graphqlLine('7500001', { quantity: 3, code: 'TENOFF' });
    line.originalUnitPriceSet = kwd('4.115');
    line.discountAllocations[0]!.allocatedAmountSet = kwd('1.005');
    // Three iPods at 4.115 KWD, TENOFF 1.005 off, tax 1.005: 12.345 KWD.
    const order = graphqlOrder('820982911946300001', { email: 'kuwait@example.com', codes: ['TENOFF'], lines: [line] });
    context.fake.orders.set(shop.shop, [
      {
        ...order,
        currencyCode: 'KWD',
        presentmentCurrencyCode: 'KWD',
        totalPriceSet: kwd('12.345'),
        currentTotalPriceSet: kwd('12.345'),
        subtotalPriceSet: kwd('11.340'),
        currentSubtotalPriceSet: kwd('11.340'),
        totalDiscountsSet: kwd('1.005'),
        currentTotalDiscountsSet: kwd('1.005'),
        totalTaxSet: kwd('1.005'),
        currentTotalTaxSet: kwd('1.005'),
        totalShippingPriceSet: kwd('0.000'),
        currentShippingPriceSet: kwd('0.000'),
      },
    ]);
    const run = await referrals(context.app, ['shopify', 'reconcile', '--brand', shop.brandId, '--since', '2026-11-01', '--json']);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({ conversions_backfilled: 1, failed: [] });
    // 7 % of 12.345 KWD = 0.86415 → 0.864.
    expect(await conversionOf(context, shop.brandId, '820982911946300001')).toMatchObject({
      order_value: '12.345',
      order_subtotal: '11.340',
      discount_applied: '1.005',
      currency: 'KWD',
      referrer_reward_paid: '0.864',
    });
  });
});

describe('a Shopify shop selling in JPY still counts whole yen', () => {
  it('records the order as 4,560 yen with a whole-yen reward, and a refund of one line as 1,520 yen', async () => {
    const shop = await shopWithTenoff(context, { reward_type: 'percentage', reward_value: 7 }, 'JPY');
    expect(await deliver(context, shop, 'orders/paid', JPY_ORDER)).toMatchObject({ outcome: 'conversion_recorded' });
    // 7 % of 4,560 yen = 319.2 → 319.
    expect(await conversionOf(context, shop.brandId, '450789469')).toMatchObject({
      order_value: '4560',
      order_subtotal: '4200',
      discount_applied: '300',
      currency: 'JPY',
      referrer_reward_paid: '319',
    });
    const refund = variant(KWD_REFUND, (body) => {
      const yen = (amount: string) => ({ shop_money: { amount, currency_code: 'JPY' }, presentment_money: { amount, currency_code: 'JPY' } });
      body.total_duties_set = yen('0');
      body.refund_line_items[0] = { ...body.refund_line_items[0], subtotal: '1400', total_tax: '120', subtotal_set: yen('1400'), total_tax_set: yen('120') };
      body.transactions[0] = { ...body.transactions[0], amount: '1520', currency: 'JPY' };
    });
    expect(await deliver(context, shop, 'refunds/create', refund)).toMatchObject({ outcome: 'refund_recorded' });
    expect(await conversionOf(context, shop.brandId, '450789469')).toMatchObject({ status: 'partial_refund', refunded_total: '1520' });
    // 319 × 1,520 / 4,560 = 106.33 → 106 reversed: 213 left.
    expect(await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).toMatchObject({ currency: 'JPY', balance: 213 });
  });
});

import { rewardBalance } from '../../core/ledger/reward-ledger';
import { conversionOf, deliver, refundsOf, shopWithTenoff } from './sales-shop';
import { fixtureText, setUpShopifyTests, variant } from './shopify-test-kit';

const context = setUpShopifyTests();

// Order #1001 of a USD shop sold in EUR: 598.94 USD paid as 550.00 EUR (fixtures/shopify/README.md).
const EUR_ORDER = fixtureText('orders-paid.usd-shop-eur-buyer.json');
const EUR_REFUND = fixtureText('refunds-create.usd-shop-eur-buyer.json');
const TRANSACTION_SAMPLE = fixtureText('order-transactions-create.webhook-schemas-2026-07.json');

/** The refund of the second line only (199.65 USD = 183.33 EUR), its transaction in the state given. */
function secondLineRefund(status: string): string {
  return variant(EUR_REFUND, (refund) => {
    refund.id = 509562970;
    refund.refund_line_items = [refund.refund_line_items[1]];
    refund.transactions[0].id = 179259970;
    refund.transactions[0].amount = '183.33';
    refund.transactions[0].status = status;
  });
}

/** order_transactions/create as Shopify sends it when that refund transaction settles. */
function transactionSettled(status: string): string {
  return variant(TRANSACTION_SAMPLE, (transaction) => {
    Object.assign(transaction, { id: 179259970, order_id: 450789469, kind: 'refund', status, amount: '183.33', currency: 'EUR', parent_id: 801038806, test: false });
    transaction.total_unsettled_set = null;
  });
}

describe('Shopify money in the shop\'s currency', () => {
  it('records an order sold in EUR in the shop\'s USD, keeping the buyer\'s currency for display', async () => {
    const shop = await shopWithTenoff(context);
    expect(await deliver(context, shop, 'orders/paid', EUR_ORDER)).toMatchObject({ outcome: 'conversion_recorded' });
    const conversion = await conversionOf(context, shop.brandId, '450789469');
    expect(conversion).toMatchObject({ order_value: '598.94', order_subtotal: '587.00', discount_applied: '10.00', currency: 'USD', referral_code: 'TENOFF' });
    expect(conversion.metadata).toMatchObject({ presentment_currency: 'EUR', presentment_total: 550, total_tax: 11.94 });
    expect(conversion.coupons_applied).toEqual([{ code: 'TENOFF', discount_amount: 10 }]);
    const lines = await context.app.db('conversion_products').where({ brand_id: shop.brandId, conversion_id: conversion.conversion_id }).orderBy('line_no');
    expect(lines.map((line: Record<string, string>) => [line.price, line.line_total])).toEqual([
      ['199.00', '195.66'],
      ['199.00', '195.67'],
      ['199.00', '195.67'],
    ]);
  });

  it('records a 550.00 EUR refund of that order as the 598.94 USD it is: a full refund, the reward reversed', async () => {
    const shop = await shopWithTenoff(context);
    await deliver(context, shop, 'orders/paid', EUR_ORDER);
    expect(await deliver(context, shop, 'refunds/create', EUR_REFUND)).toMatchObject({ status: 'done', outcome: 'refund_recorded' });
    expect(await conversionOf(context, shop.brandId, '450789469')).toMatchObject({ status: 'refunded', refunded_total: '598.94' });
    const [refund] = await refundsOf(context, shop.brandId);
    expect(refund).toMatchObject({ refund_id: '509562969', amount: '598.94', status_after: 'refunded' });
    expect(refund.metadata).toMatchObject({ transaction_ids: ['179259969'], presentment_currency: 'EUR', presentment_amount: 550 });
    expect(await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).toMatchObject({ balance: 0 });
  });

  it('counts a pending refund transaction when order_transactions/create says it succeeded, and only once', async () => {
    const shop = await shopWithTenoff(context);
    await deliver(context, shop, 'orders/paid', EUR_ORDER);

    expect(await deliver(context, shop, 'refunds/create', secondLineRefund('pending'))).toMatchObject({ status: 'done', outcome: 'waiting: a refund transaction is pending' });
    expect(await conversionOf(context, shop.brandId, '450789469')).toMatchObject({ status: 'completed', refunded_total: '0.00' });
    expect(await refundsOf(context, shop.brandId)).toEqual([]);

    expect(await deliver(context, shop, 'order_transactions/create', transactionSettled('success'))).toMatchObject({ status: 'done', outcome: 'refund_recorded' });
    expect(await conversionOf(context, shop.brandId, '450789469')).toMatchObject({ status: 'partial_refund', refunded_total: '199.65' });
    expect(await refundsOf(context, shop.brandId)).toMatchObject([{ refund_id: '509562970', amount: '199.65' }]);
    // 10.00 × 199.65 / 598.94 = 3.33 reversed.
    expect(await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).toMatchObject({ balance: 6.67 });

    // The same news again, and the refund redelivered as it now stands (reconcile): nothing more.
    expect(await deliver(context, shop, 'order_transactions/create', transactionSettled('success'))).toMatchObject({ outcome: 'duplicate_refund' });
    expect(await deliver(context, shop, 'refunds/create', secondLineRefund('success'))).toMatchObject({ outcome: 'duplicate_refund' });
    expect(await conversionOf(context, shop.brandId, '450789469')).toMatchObject({ refunded_total: '199.65' });
    expect(await refundsOf(context, shop.brandId)).toHaveLength(1);
    expect(await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).toMatchObject({ balance: 6.67 });
  });

  it('counts a refund whose transaction settled before the refund itself arrived, once', async () => {
    const shop = await shopWithTenoff(context);
    await deliver(context, shop, 'orders/paid', EUR_ORDER);
    expect(await deliver(context, shop, 'order_transactions/create', transactionSettled('success'))).toMatchObject({ outcome: 'waiting: its refund has not arrived' });
    expect(await deliver(context, shop, 'refunds/create', secondLineRefund('pending'))).toMatchObject({ outcome: 'refund_recorded' });
    expect(await refundsOf(context, shop.brandId)).toMatchObject([{ refund_id: '509562970', amount: '199.65' }]);
  });

  it('never counts a refund transaction that failed', async () => {
    const shop = await shopWithTenoff(context);
    await deliver(context, shop, 'orders/paid', EUR_ORDER);
    await deliver(context, shop, 'refunds/create', secondLineRefund('pending'));
    expect(await deliver(context, shop, 'order_transactions/create', transactionSettled('failure'))).toMatchObject({ outcome: 'ignored: the refund transaction ended failure' });
    expect(await refundsOf(context, shop.brandId)).toEqual([]);
    expect(await conversionOf(context, shop.brandId, '450789469')).toMatchObject({ status: 'completed', refunded_total: '0.00' });
  });

  it('ignores order_transactions/create for payments that are not refunds', async () => {
    const shop = await shopWithTenoff(context);
    expect(await deliver(context, shop, 'order_transactions/create', TRANSACTION_SAMPLE)).toMatchObject({ status: 'done', outcome: 'ignored: not a refund (authorization)' });
  });
});

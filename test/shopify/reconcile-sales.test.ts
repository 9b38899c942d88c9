import { givenAdvocate } from '../helpers/fixtures';
import { SHOP_CURRENCY, graphqlLine, graphqlOrder, graphqlRefund, money } from './admin-order-nodes';
import { inboxRow, installApp, referrals, setUpShopifyTests } from './shopify-test-kit';

const context = setUpShopifyTests();

const reconcile = async (brandId: string) => {
  const run = await referrals(context.app, ['shopify', 'reconcile', '--brand', brandId, '--since', '2026-11-01', '--json']);
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout);
};

async function shopWithAdvocate(code: string) {
  const installed = await installApp(context.app, context.fake, undefined, 'premier', SHOP_CURRENCY);
  await givenAdvocate(context.app.db, installed.brandId, { code });
  return installed;
}

const conversion = (brandId: string, orderId: string) => context.app.db('conversions').where({ brand_id: brandId, order_id: orderId }).first();
const refunds = (brandId: string) => context.app.db('refunds').where({ brand_id: brandId }).orderBy('refund_pk').select('refund_id', 'amount');

describe('shopify reconcile: refunds, edits and cancellations as the webhooks report them', () => {
  it('values an edited, partly refunded order at its current amounts plus the refunds it lists (not the totals as placed)', async () => {
    const installed = await shopWithAdvocate('EDITOFF');
    // Placed at 130.00 (two tees 110.00 after EDITOFF, socks 10.00, tax 5, shipping 5); an edit removed
    // the socks (120.00); then one tee was refunded: 55.00 and 2.50 tax.
    const tee = { ...graphqlLine('7400001', { quantity: 2, code: 'EDITOFF' }), currentQuantity: 1 };
    const socks = { ...graphqlLine('7400002', { title: 'Socks', price: '10.00' }), currentQuantity: 0 };
    const refund = graphqlRefund('8400001', ['57.50']);
    refund.refundLineItems.nodes.push({ quantity: 1, lineItem: { id: tee.id }, subtotalSet: money('55.00'), totalTaxSet: money('2.50') });
    context.fake.orders.set(installed.shop, [
      {
        ...graphqlOrder('820982911946200001', { email: 'edit@example.com', codes: ['EDITOFF'], status: 'PARTIALLY_REFUNDED', total: '130.00', lines: [tee, socks], refundNodes: [refund] }),
        subtotalPriceSet: money('120.00'),
        currentSubtotalPriceSet: money('55.00'),
        currentTotalPriceSet: money('62.50'),
        currentTotalTaxSet: money('2.50'),
      },
    ]);

    expect(await reconcile(installed.brandId)).toMatchObject({ conversions_backfilled: 1, refunds_backfilled: 1, failed: [] });
    const recorded = await conversion(installed.brandId, '820982911946200001');
    expect(recorded).toMatchObject({ order_value: '120.00', order_subtotal: '110.00', refunded_total: '57.50', status: 'partial_refund' });
    const products = await context.app.db('conversion_products').where({ brand_id: installed.brandId, conversion_id: recorded.conversion_id });
    expect(products).toMatchObject([{ name: 'Tee', quantity: 2, line_total: '110.00' }]);
  });

  it('reverses what the refunds left of a paid order found cancelled, as orders/cancelled does, once', async () => {
    const installed = await shopWithAdvocate('GONEOFF');
    context.fake.orders.set(installed.shop, [
      {
        ...graphqlOrder('820982911946200002', { email: 'gone@example.com', codes: ['GONEOFF'], status: 'PARTIALLY_REFUNDED', refunds: [{ id: '8400002', amount: '20.00' }] }),
        cancelledAt: '2026-11-12T09:00:00Z',
        cancelReason: 'CUSTOMER',
      },
      // Cancelled before it was paid: no sale, nothing to reverse.
      { ...graphqlOrder('820982911946200003', { email: 'void@example.com', codes: ['GONEOFF'], status: 'VOIDED' }), cancelledAt: '2026-11-12T09:00:00Z' },
    ]);

    const first = await reconcile(installed.brandId);
    expect(first).toMatchObject({ conversions_backfilled: 1, refunds_backfilled: 1, cancellations_backfilled: 1, cancellations: { refund_recorded: 1 }, orders: { not_paid: 1 }, failed: [] });
    expect(await conversion(installed.brandId, '820982911946200002')).toMatchObject({ order_value: '120.00', refunded_total: '120.00', status: 'refunded' });
    expect(await refunds(installed.brandId)).toEqual([
      { refund_id: '8400002', amount: '20.00' },
      { refund_id: 'cancel:820982911946200002', amount: '100.00' },
    ]);
    expect(await inboxRow(context.app.db, installed.brandId, 'reconcile:orders/cancelled:820982911946200002')).toMatchObject({ status: 'done', outcome: 'refund_recorded' });

    const second = await reconcile(installed.brandId);
    expect(second).toMatchObject({ cancellations_backfilled: 0, cancellations: { reconciled_before: 1 } });
    expect(await refunds(installed.brandId)).toHaveLength(2);
  });

  it('counts a refund transaction that was pending at the last reconcile once it has succeeded, and only once', async () => {
    const installed = await shopWithAdvocate('WAITOFF');
    const refund = graphqlRefund('8400004', ['20.00']);
    refund.transactions.nodes[0]!.status = 'PENDING';
    context.fake.orders.set(installed.shop, [graphqlOrder('820982911946200004', { email: 'wait@example.com', codes: ['WAITOFF'], status: 'PARTIALLY_REFUNDED', refundNodes: [refund] })]);

    const first = await reconcile(installed.brandId);
    expect(first).toMatchObject({ conversions_backfilled: 1, refunds_backfilled: 0, refunds: { 'waiting: a refund transaction is pending': 1 } });
    expect(await conversion(installed.brandId, '820982911946200004')).toMatchObject({ refunded_total: '0.00', status: 'completed' });

    // The gateway confirmed it; no order_transactions/create reached us.
    refund.transactions.nodes[0]!.status = 'SUCCESS';
    const second = await reconcile(installed.brandId);
    expect(second).toMatchObject({ refunds_backfilled: 1, refunds: { refund_recorded: 1 }, failed: [] });
    expect(await conversion(installed.brandId, '820982911946200004')).toMatchObject({ refunded_total: '20.00', status: 'partial_refund' });

    const third = await reconcile(installed.brandId);
    expect(third).toMatchObject({ refunds_backfilled: 0, refunds: { reconciled_before: 1 } });
    expect(await refunds(installed.brandId)).toEqual([{ refund_id: '8400004', amount: '20.00' }]);
  });

  it('reads a refund of 60 lines whole, in queries under 1,000 points', async () => {
    const installed = await shopWithAdvocate('MANYOFF');
    const lines = Array.from({ length: 60 }, (_, index) => ({ ...graphqlLine(`7500${index}`, { title: `Item ${index}`, price: '2.00', code: index === 0 ? 'MANYOFF' : undefined, discount: '0.00' }), currentQuantity: 0 }));
    const refund = graphqlRefund('8400005', ['120.00']);
    for (const line of lines) refund.refundLineItems.nodes.push({ quantity: 1, lineItem: { id: line.id }, subtotalSet: money('2.00'), totalTaxSet: money('0.00') });
    context.fake.orders.set(installed.shop, [
      {
        ...graphqlOrder('820982911946200005', { email: 'many@example.com', codes: ['MANYOFF'], status: 'REFUNDED', total: '130.00', lines, refundNodes: [refund] }),
        subtotalPriceSet: money('120.00'),
        totalDiscountsSet: money('0.00'),
        currentSubtotalPriceSet: money('0.00'),
        currentTotalPriceSet: money('10.00'),
      },
    ]);

    expect(await reconcile(installed.brandId)).toMatchObject({ conversions_backfilled: 1, refunds_backfilled: 1, failed: [] });
    // 10.00 left after the refund + the 60 lines it gave back (120.00): the order as paid.
    expect(await conversion(installed.brandId, '820982911946200005')).toMatchObject({ order_value: '130.00', order_subtotal: '120.00', refunded_total: '120.00' });
    const calls = context.fake.costs.filter((call) => call.shop === installed.shop);
    expect(calls.map((call) => call.operation)).toEqual(expect.arrayContaining(['ReconcileRefund', 'ReconcileRefundLineItems']));
    for (const call of calls) expect(call.cost).toBeLessThanOrEqual(1000);
  });
});

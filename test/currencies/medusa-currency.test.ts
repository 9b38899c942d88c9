import { rewardBalance } from '../../core/ledger/reward-ledger';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { hexHmacSha256 } from '../helpers/signed-convert';
import { startTestApp } from '../helpers/test-app';
import { type OrderState, snapshotBody } from '../medusa/order-graphs';

/** A Medusa store selling in EUR (the snapshots' currency_code), reporting to a brand in `currency` that credits at once. */
async function givenStoreReportingTo(currency: string, discount = 7) {
  const service = await startTestApp();
  const brand = await givenBrand(service.db, { plan: 'premier', reward_type: 'percentage', reward_value: 10, reward_hold_days: 0, currency });
  const advocate = await givenAdvocate(service.db, brand.brandId);
  const order: OrderState = { id: `order_${uniqueOrderId()}`, email: 'buyer@example.com', promotions: [{ code: advocate.code, discount }], paid: 'all' };
  const deliver = (body: string) =>
    service.http.post('/medusa/webhooks').set({ 'Content-Type': 'application/json', 'X-Brand-ID': brand.brandId, 'X-AL-Signature': hexHmacSha256(brand.apiKey, body) }).send(body);
  return { service, brand, advocate, order, deliver };
}

describe('Medusa orders and the brand\'s currency', () => {
  it('records a EUR order for a EUR brand in EUR', async () => {
    const { service, brand, order, deliver } = await givenStoreReportingTo('EUR');
    const response = await deliver(snapshotBody(order, { event_name: 'payment.captured' }));
    expect(response.status).toBe(200);
    expect(await service.db('conversions').where({ brand_id: brand.brandId, order_id: order.id }).first()).toMatchObject({ currency: 'EUR', exchange_rate: null, order_value: '63.00', referrer_reward_paid: '6.30' });
  });

  it('refuses a EUR order for a USD brand with 422 naming exchange_rate (the plugin keeps it as refused), recording nothing', async () => {
    const { service, brand, order, deliver } = await givenStoreReportingTo('USD');
    const response = await deliver(snapshotBody(order, { event_name: 'payment.captured' }));
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      success: false,
      error: 'exchange_rate is required: the order is in EUR and the brand\'s currency is USD (send USD per 1 EUR, e.g. "1.0825")',
      code: 'exchange_rate_required',
    });
    expect(await service.db('conversions').where({ brand_id: brand.brandId })).toHaveLength(0);
    expect(await service.db('claims').where({ brand_id: brand.brandId })).toHaveLength(0);
    expect(await service.db('medusa_deliveries').where({ brand_id: brand.brandId })).toHaveLength(0);
  });
});

/**
 * The order of a Kuwaiti store (currency_code kwd), its amounts written out in Medusa's forms
 * (numbers, strings, BigNumber raw values): two tees at 4.115 KWD with 0.105 off for the code, a mug
 * at 3.005, shipping 1.215: 12.345 KWD paid. `refunded`: Medusa's refund of 4.115 KWD has been made.
 */
function kwdSnapshot(order: OrderState, event_name: string, refunded = false): string {
  const body = JSON.parse(snapshotBody(order, { event_name }));
  const graph = body.order;
  graph.currency_code = 'kwd';
  Object.assign(graph.items[0], { unit_price: 4.115, total: { value: '8.125', precision: 20 } });
  graph.items[0].adjustments[0].amount = '0.105';
  Object.assign(graph.items[1], { unit_price: '3.005', total: 3.005 });
  Object.assign(graph, {
    total: refunded ? '8.230' : { value: '12.345', precision: 20 },
    subtotal: '11.130',
    shipping_total: 1.215,
    discount_total: '0.105',
    summary: { paid_total: { value: '12.345', precision: 20 }, refunded_total: refunded ? '4.115' : 0 },
  });
  graph.payment_collections[0].payments[0].refunds = refunded ? [{ id: 'ref_kwd_01', amount: '4.115', note: null, created_at: '2026-11-21T10:00:00Z' }] : [];
  return JSON.stringify(body);
}

describe('a Medusa store selling in KWD (3 decimals) reporting to a KWD brand', () => {
  it('records the order as 12.345 KWD and its refund of 4.115 KWD to the fils, the reward exact', async () => {
    const { service, brand, advocate, order, deliver } = await givenStoreReportingTo('KWD', 0.105);
    const captured = await deliver(kwdSnapshot(order, 'payment.captured'));
    expect(captured.status).toBe(200);
    const conversion = await service.db('conversions').where({ brand_id: brand.brandId, order_id: order.id }).first();
    // 10 % of 12.345 KWD = 1.2345 → 1.235 (half up, at the fils).
    expect(conversion).toMatchObject({ currency: 'KWD', exchange_rate: null, order_value: '12.345', order_subtotal: '11.130', referrer_reward_paid: '1.235' });
    expect(conversion.coupons_applied).toEqual([{ code: advocate.code, discount_amount: 0.105 }]);
    const lines = await service.db('conversion_products').where({ brand_id: brand.brandId, conversion_id: conversion.conversion_id }).orderBy('line_no');
    expect(lines.map((line: Record<string, string>) => [line.price, line.line_total])).toEqual([
      ['4.115', '8.125'],
      ['3.005', '3.005'],
    ]);

    const refunded = await deliver(kwdSnapshot(order, 'payment.refunded', true));
    expect(refunded.status).toBe(200);
    expect(refunded.body.data).toMatchObject({ status: 'partial_refund', refunds_recorded: ['ref_kwd_01'] });
    expect(await service.db('conversions').where({ brand_id: brand.brandId, order_id: order.id }).first()).toMatchObject({ status: 'partial_refund', refunded_total: '4.115' });
    expect(await service.db('refunds').where({ brand_id: brand.brandId }).select('refund_id', 'amount')).toEqual([{ refund_id: 'ref_kwd_01', amount: '4.115' }]);
    // 1.235 × 4.115 / 12.345 = 0.41166… → 0.412 reversed: 0.823 left.
    expect(await rewardBalance(service.db, brand.brandId, advocate.advocateId)).toMatchObject({ currency: 'KWD', balance: 0.823 });

    const again = await deliver(kwdSnapshot(order, 'payment.refunded', true));
    expect(again.body.data).toMatchObject({ status: 'partial_refund', refunds_recorded: [] });
    expect(await service.db('conversions').where({ brand_id: brand.brandId, order_id: order.id }).first()).toMatchObject({ refunded_total: '4.115' });
  });

  it('cancels the rest exactly: a canceled order after that refund refunds the other 8.230 KWD', async () => {
    const { service, brand, order, deliver } = await givenStoreReportingTo('KWD', 0.105);
    await deliver(kwdSnapshot(order, 'payment.captured'));
    const canceled = await deliver(kwdSnapshot({ ...order, canceled: true }, 'order.canceled', true));
    expect(canceled.status).toBe(200);
    expect(canceled.body.data).toMatchObject({ status: 'refunded', refunds_recorded: ['ref_kwd_01', `cancel:${order.id}`] });
    expect(await service.db('refunds').where({ brand_id: brand.brandId }).orderBy('refund_pk').select('refund_id', 'amount')).toEqual([
      { refund_id: 'ref_kwd_01', amount: '4.115' },
      { refund_id: `cancel:${order.id}`, amount: '8.230' },
    ]);
    expect(await service.db('conversions').where({ brand_id: brand.brandId, order_id: order.id }).first()).toMatchObject({ status: 'refunded', refunded_total: '12.345' });
  });
});

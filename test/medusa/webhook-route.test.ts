import { rewardBalance } from '../../core/ledger/reward-ledger';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { hexHmacSha256 } from '../helpers/signed-convert';
import { GENEROUS_LIMITS, startTestApp } from '../helpers/test-app';
import { type OrderState, snapshotBody } from './order-graphs';

async function givenMedusaStore() {
  // Conversions limited to one per hour per IP: the connector route must not be limited at all.
  const service = await startTestApp({ rateLimits: { ...GENEROUS_LIMITS, conversion: 1, refund: 1 } });
  const brand = await givenBrand(service.db, { plan: 'premier', reward_hold_days: 0, currency: 'EUR' }); // the snapshots' currency_code
  const advocate = await givenAdvocate(service.db, brand.brandId);
  const order: OrderState = { id: `order_${uniqueOrderId()}`, email: 'buyer@example.com', promotions: [{ code: advocate.code, discount: 7 }], paid: 'all' };
  const deliver = (body: string, headers: Record<string, string> = {}) =>
    service.http
      .post('/medusa/webhooks')
      .set({ 'Content-Type': 'application/json', 'X-Brand-ID': brand.brandId, 'X-AL-Signature': hexHmacSha256(brand.apiKey, body), ...headers })
      .send(body);
  const conversion = () => service.db('conversions').where({ brand_id: brand.brandId, order_id: order.id }).first();
  return { service, brand, advocate, order, deliver, conversion };
}

/** Every ordering of the items. */
function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, at) => permutations([...items.slice(0, at), ...items.slice(at + 1)]).map((rest) => [item, ...rest]));
}

/**
 * The snapshots Medusa 2.21 reads for one order (63.00 paid, reward 10.00): captured; refunded 21.00
 * (total now 42.00 after the credit line, paid_total still 63.00); canceled (Medusa refunded nothing
 * more itself in this story, so the cancellation refunds the remaining 42.00).
 */
function lifecycleSnapshots(order: OrderState): Record<'captured' | 'refunded' | 'canceled', string> {
  const captured = snapshotBody({ ...order, paid: 'all' }, { event_name: 'payment.captured' });
  const refunds = [{ id: 'ref_part', amount: 21, created_at: '2026-11-21T10:00:00Z' }];
  const refunded = snapshotBody({ ...order, paid: 'all', refunds }, { event_name: 'payment.refunded' });
  const canceled = snapshotBody({ ...order, paid: 'all', refunds, canceled: true }, { event_name: 'order.canceled' });
  return { captured, refunded, canceled };
}

describe('POST /medusa/webhooks', () => {
  it('answers 200 with what the snapshot recorded', async () => {
    const { order, deliver } = await givenMedusaStore();
    const response = await deliver(snapshotBody(order, { event_id: 'evt-1' }));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      success: true,
      data: { event_id: 'evt-1', order_id: order.id, duplicate: false, attributed: true, status: 'completed', refunds_recorded: [] },
    });
    expect(response.body.data.conversion_id).toEqual(expect.any(Number));
    expect(response.body.data.claim_id).toEqual(expect.any(Number));
  });

  it('answers a repeated event id with the first outcome and changes nothing', async () => {
    const { service, brand, order, deliver } = await givenMedusaStore();
    const body = snapshotBody(order, { event_id: 'evt-repeat' });
    const first = await deliver(body);
    const again = await deliver(body);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ ...first.body.data, duplicate: true });
    expect(await service.db('conversions').where({ brand_id: brand.brandId })).toHaveLength(1);
    expect(await service.db('medusa_deliveries').where({ brand_id: brand.brandId })).toHaveLength(1);
  });

  it('reaches the same state when snapshots arrive out of order or twice', async () => {
    const { service, brand, order, deliver, conversion } = await givenMedusaStore();
    const paid = snapshotBody(order, { event_name: 'order.placed' });
    order.refunds = [{ id: 'ref_1', amount: 21, created_at: '2026-11-21T10:00:00Z' }];
    const firstRefund = snapshotBody(order, { event_name: 'payment.refunded' });
    order.refunds.push({ id: 'ref_2', amount: 10, created_at: '2026-11-22T10:00:00Z' });
    const secondRefund = snapshotBody(order, { event_name: 'payment.refunded' });

    for (const body of [secondRefund, paid, firstRefund, secondRefund]) expect((await deliver(body)).status).toBe(200);
    expect(await conversion()).toMatchObject({ status: 'partial_refund', refunded_total: '31.00' });
    expect((await service.db('refunds').where({ brand_id: brand.brandId }).orderBy('refund_pk')).map((refund) => refund.refund_id)).toEqual(['ref_1', 'ref_2']);
  });

  it.each(permutations(['captured', 'refunded', 'canceled'] as const))(
    'ends with the same numbers whatever order capture, refund and cancel arrive in: %s, %s, %s',
    async (...arrival) => {
      const { service, brand, advocate, order, deliver, conversion } = await givenMedusaStore();
      const snapshots = lifecycleSnapshots(order);
      for (const name of arrival) expect((await deliver(snapshots[name])).status).toBe(200);

      expect(await conversion()).toMatchObject({ status: 'refunded', order_value: '63.00', refunded_total: '63.00', referrer_reward_paid: '10.00' });
      const refunds = await service.db('refunds').where({ brand_id: brand.brandId }).orderBy('refund_id');
      expect(refunds.map((refund) => [refund.refund_id, refund.amount])).toEqual([
        [`cancel:${order.id}`, '42.00'],
        ['ref_part', '21.00'],
      ]);
      expect((await rewardBalance(service.db, brand.brandId, advocate.advocateId)).balance).toBe(0);
    },
  );

  it.each(permutations(['captured', 'refunded'] as const))('values the order at what was paid whether %s or %s arrives first', async (...arrival) => {
    const { service, brand, advocate, deliver, conversion, order } = await givenMedusaStore();
    const snapshots = lifecycleSnapshots(order);
    for (const name of arrival) expect((await deliver(snapshots[name])).status).toBe(200);

    expect(await conversion()).toMatchObject({ status: 'partial_refund', order_value: '63.00', refunded_total: '21.00', referrer_reward_paid: '10.00' });
    // 10.00 − 10.00 × 21/63
    expect((await rewardBalance(service.db, brand.brandId, advocate.advocateId)).balance).toBe(6.67);
  });

  it('records one conversion and one claim when several events of an order arrive at the same moment', async () => {
    const { service, brand, order, deliver } = await givenMedusaStore();
    const bodies = ['order.placed', 'payment.captured', 'order.placed'].map((event_name) => snapshotBody(order, { event_name }));
    const answers = await Promise.all(bodies.map((body) => deliver(body)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.body.data.conversion_id)).size).toBe(1);
    expect(await service.db('conversions').where({ brand_id: brand.brandId })).toHaveLength(1);
    expect(await service.db('claims').where({ brand_id: brand.brandId })).toHaveLength(1);
    expect(await service.db('reward_ledger').where({ brand_id: brand.brandId, kind: 'credit' })).toHaveLength(1);
  });

  it('skips refunds once a cancellation refunded everything, instead of refusing the snapshot', async () => {
    const { service, brand, order, deliver, conversion } = await givenMedusaStore();
    order.canceled = true;
    expect((await deliver(snapshotBody(order, { event_name: 'order.canceled' }))).status).toBe(200);
    // A refund Medusa made before the cancel, in a snapshot that arrives after it.
    order.canceled = false;
    order.refunds = [{ id: 'ref_late', amount: 21, created_at: '2026-11-21T10:00:00Z' }];
    const late = await deliver(snapshotBody(order, { event_name: 'payment.refunded' }));
    expect(late.status).toBe(200);
    expect(late.body.data).toMatchObject({ status: 'refunded', refunds_recorded: [] });
    expect(await conversion()).toMatchObject({ status: 'refunded', refunded_total: '63.00' });
    expect(await service.db('refunds').where({ brand_id: brand.brandId })).toHaveLength(1);
  });

  it('is not rate limited per IP', async () => {
    const { order, deliver } = await givenMedusaStore();
    for (let i = 0; i < 3; i += 1) expect((await deliver(snapshotBody(order))).status).toBe(200);
  });

  it('refuses a body whose signature does not match with 401', async () => {
    const { brand, order, deliver } = await givenMedusaStore();
    const body = snapshotBody(order);
    const response = await deliver(body, { 'X-AL-Signature': hexHmacSha256(`${brand.apiKey}x`, body) });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ success: false, error: expect.stringMatching(/X-AL-Signature does not match/), code: 'unauthorized' });
  });

  it('refuses a delivery signed with a revoked key with 401', async () => {
    const { service, brand, order, deliver } = await givenMedusaStore();
    await service.db('api_keys').where({ brand_id: brand.brandId, key_id: brand.keyId }).update({ revoked_at: service.db.fn.now() });
    expect((await deliver(snapshotBody(order))).status).toBe(401);
  });

  it('refuses missing or malformed headers with 401', async () => {
    const { order, deliver } = await givenMedusaStore();
    const body = snapshotBody(order);
    expect((await deliver(body, { 'X-Brand-ID': '' })).body.error).toBe('X-Brand-ID header is required');
    expect((await deliver(body, { 'X-AL-Signature': '' })).body.error).toBe('X-AL-Signature header is required');
    expect((await deliver(body, { 'X-Brand-ID': 'acme' })).status).toBe(401);
    expect((await deliver(body, { 'X-Brand-ID': '00000000-0000-4000-8000-000000000000' })).status).toBe(401);
  });

  it('refuses a snapshot missing a field with 400 naming it, and records nothing', async () => {
    const { service, brand, order, deliver } = await givenMedusaStore();
    const body = JSON.parse(snapshotBody(order));
    delete body.order.id;
    const response = await deliver(JSON.stringify(body));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, error: expect.stringMatching(/order\.id/), code: 'invalid_request' });
    expect(await service.db('medusa_deliveries').where({ brand_id: brand.brandId })).toHaveLength(0);
  });

  it('refuses a body that is not JSON with 400', async () => {
    const { deliver } = await givenMedusaStore();
    expect((await deliver('{"version":')).status).toBe(400);
  });
});

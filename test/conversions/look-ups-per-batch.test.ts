import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';

// Orders of one batch read their facts together (core/conversions/paid-order-batch.ts); these
// tests send orders at once so they share a batch, where an earlier order changes what a later
// one must find. The batcher writes a batch's orders in order_id order.

let t: TestApp;
beforeAll(async () => {
  // A window wide enough that requests sent together on a busy machine surely share a batch.
  t = await startTestApp({ writeBatch: { maxWaitMs: 200 } });
});

type Headers = Record<string, string>;
type Answer = { status: number; body: { success: boolean; error?: string; data: Record<string, unknown> & { review: null | { status: string; reasons: unknown[] } } } };

async function brandWithAdvocate(settings: object = {}) {
  const brand = await givenBrand(t.db, { plan: 'premier', reward_type: 'fixed', reward_value: 5, reward_hold_days: 0, ...settings });
  const ann = await givenAdvocate(t.db, brand.brandId);
  // Authenticates once, so the key is cached and the orders below reach the batcher together.
  expect((await t.http.get(`/api/v1/advocates/${ann.advocateId}/balance`).set(brand.headers)).status).toBe(200);
  return { brand, ann };
}

/** Sends the orders at once; the answers in the same order. */
function together(headers: Headers, orders: object[]): Promise<Answer[]> {
  return Promise.all(orders.map((order) => t.http.post('/api/v1/track/conversion').set(headers).send(order) as unknown as Promise<Answer>));
}

/** now() is the transaction's start: one timestamp for all of a brand's conversions means one batch wrote them. */
async function expectOneBatch(brandId: string): Promise<void> {
  const rows: Array<{ created_at: Date }> = await t.db('conversions').where({ brand_id: brandId }).select('created_at');
  expect(rows.length).toBeGreaterThan(1);
  expect(new Set(rows.map((row) => row.created_at.getTime())).size).toBe(1);
}

const balanceOf = async (headers: Headers, advocateId: number) =>
  (await t.http.get(`/api/v1/advocates/${advocateId}/balance`).set(headers)).body.data as { credited: number; balance: number };

describe('orders written together in one batch', () => {
  it('links the customer’s one pending claim to the first of their two orders only, and marks it converted with that order', async () => {
    const { brand, ann } = await brandWithAdvocate();
    const claim = await t.http.post('/api/v1/track/claim').set(brand.headers).send({ referral_code: ann.code, email: 'pat@example.com', raw_value: 40 });
    expect(claim.status).toBe(201);
    const base = uniqueOrderId();

    const [first, second] = await together(brand.headers, [
      { order_id: `${base}-a`, email: 'pat@example.com', order_value: 40, referral_code: ann.code },
      { order_id: `${base}-b`, email: 'Pat@Example.com', order_value: 60, referral_code: ann.code },
    ]);

    expect(first!.status).toBe(201);
    expect(first!.body.data).toMatchObject({ order_id: `${base}-a`, claim_id: claim.body.data.claim_id });
    expect(second!.status).toBe(201);
    expect(second!.body.data).toMatchObject({ order_id: `${base}-b`, claim_id: null });
    const row = await t.db('claims').where({ brand_id: brand.brandId, claim_id: claim.body.data.claim_id }).first();
    expect(row).toMatchObject({ status: 'converted', order_id: `${base}-a` });
    await expectOneBatch(brand.brandId);
  });

  it('holds the second of two orders for review when the brand’s velocity rule allows one per advocate per hour', async () => {
    const { brand, ann } = await brandWithAdvocate({ fraud_max_per_advocate_hour: 1 });
    const base = uniqueOrderId();

    const [first, second] = await together(brand.headers, [
      { order_id: `${base}-a`, email: 'one@example.com', order_value: 50, referral_code: ann.code },
      { order_id: `${base}-b`, email: 'two@example.com', order_value: 50, referral_code: ann.code },
    ]);

    expect(first!.status).toBe(201);
    expect(first!.body.data.review).toBeNull();
    expect(second!.status).toBe(201);
    expect(second!.body.data.review).toMatchObject({
      status: 'open',
      reasons: [{ code: 'velocity', detail: 'more than 1 conversions for this advocate within an hour' }],
    });
    expect(await t.db('referral_reviews').where({ brand_id: brand.brandId })).toHaveLength(1);
    expect(await balanceOf(brand.headers, ann.advocateId)).toMatchObject({ credited: 5, balance: 5 });
    await expectOneBatch(brand.brandId);
  });

  it('holds the second of two orders from one IP address when the brand allows one per IP per day, whatever their advocates', async () => {
    const { brand, ann } = await brandWithAdvocate({ fraud_max_per_ip_day: 1 });
    const bob = await givenAdvocate(t.db, brand.brandId);
    const base = uniqueOrderId();

    const [first, second] = await together(brand.headers, [
      { order_id: `${base}-a`, email: 'one@example.com', order_value: 50, referral_code: ann.code, ip_address: '203.0.113.9' },
      { order_id: `${base}-b`, email: 'two@example.com', order_value: 50, referral_code: bob.code, ip_address: '203.0.113.9' },
    ]);

    expect(first!.body.data.review).toBeNull();
    expect(second!.body.data.review).toMatchObject({
      status: 'open',
      reasons: [{ code: 'velocity', detail: 'more than 1 conversions from this IP address within a day' }],
    });
    await expectOneBatch(brand.brandId);
  });

  it('holds an order from the device the advocate ordered with earlier in the same batch as a self-referral', async () => {
    const { brand, ann } = await brandWithAdvocate();
    const bob = await givenAdvocate(t.db, brand.brandId);
    const device = '8c3e1f0a-5b2d-4c7e-9a1f-2d3b4c5d6e7f';
    const base = uniqueOrderId();

    const [own, fromDevice] = await together(brand.headers, [
      // Ann's own order, referred by Bob, from her device.
      { order_id: `${base}-a`, email: ann.email, order_value: 50, referral_code: bob.code, visitor_id: device },
      { order_id: `${base}-b`, email: 'friend@example.com', order_value: 50, referral_code: ann.code, visitor_id: device },
    ]);

    expect(own!.status).toBe(201);
    expect(own!.body.data.review).toBeNull();
    expect(fromDevice!.status).toBe(201);
    expect(fromDevice!.body.data.review).toMatchObject({ status: 'open', reasons: [{ code: 'self_referral', detail: 'visitor_id is one the advocate used' }] });
    await expectOneBatch(brand.brandId);
  });

  it('answers an order id sent twice as one conversion and a duplicate, a bad order with its own error, and writes nothing of the bad one', async () => {
    const { brand, ann } = await brandWithAdvocate();
    const [repeated, good, unknownCode, badCurrency] = [uniqueOrderId(), uniqueOrderId(), uniqueOrderId(), uniqueOrderId()];
    const order = (orderId: string, extra: object = {}) => ({ order_id: orderId, email: `${orderId}@example.com`, order_value: 50, referral_code: ann.code, ...extra });

    const [first, second, notFound, invalid, alone] = await together(brand.headers, [
      order(repeated),
      order(repeated),
      order(unknownCode, { referral_code: 'NO-SUCH-CODE' }),
      order(badCurrency, { currency: 'EUR' }), // no exchange_rate: refused inside the batch
      order(good),
    ]);

    expect([first!.status, second!.status].sort()).toEqual([200, 201]);
    const [created, duplicate] = first!.status === 201 ? [first!, second!] : [second!, first!];
    expect(created.body.data).toMatchObject({ order_id: repeated, duplicate: false, referrer_reward_paid: 5 });
    expect(duplicate.body.data).toMatchObject({ id: created.body.data.id, order_id: repeated, duplicate: true });
    expect(notFound!.status).toBe(404);
    expect(notFound!.body).toEqual({ success: false, code: 'not_found', error: 'referral_code NO-SUCH-CODE not found' });
    expect(invalid!.status).toBe(422);
    expect(invalid!.body).toEqual({
      success: false,
      code: 'exchange_rate_required',
      error: 'exchange_rate is required: the order is in EUR and the brand\'s currency is USD (send USD per 1 EUR, e.g. "1.0825")',
    });
    expect(alone!.status).toBe(201);
    expect(alone!.body.data).toMatchObject({ order_id: good, duplicate: false, referrer_reward_paid: 5 });

    const orders = await t.db('conversions').where({ brand_id: brand.brandId }).pluck('order_id');
    expect(orders.sort()).toEqual([repeated, good].sort());
    expect(await t.db('rewards').where({ brand_id: brand.brandId })).toHaveLength(2);
    expect(await t.db('reward_ledger').where({ brand_id: brand.brandId })).toHaveLength(2);
    expect(await balanceOf(brand.headers, ann.advocateId)).toMatchObject({ credited: 10, balance: 10 });
    await expectOneBatch(brand.brandId);
  });

  it('credits each order’s percentage reward, rounded once per order, and a repeat nothing: the advocate’s balance is their exact sum', async () => {
    const { brand, ann } = await brandWithAdvocate({ reward_type: 'percentage', reward_value: 10 });
    const base = uniqueOrderId();
    const order = (suffix: string, value: number) => ({ order_id: `${base}-${suffix}`, email: `${suffix}@example.com`, order_value: value, referral_code: ann.code });

    // 10 % of 19.99 = 1.999 → 2.00; of 33.35 = 3.335 → 3.34; of 0.05 = 0.005 → 0.01.
    const answers = await together(brand.headers, [order('a', 19.99), order('b', 33.35), order('b', 33.35), order('c', 0.05)]);

    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 201, 201, 201]);
    expect(answers.filter((answer) => answer.status === 201).map((answer) => answer.body.data.referrer_reward_paid).sort()).toEqual([0.01, 2, 3.34]);
    expect(await balanceOf(brand.headers, ann.advocateId)).toMatchObject({ credited: 5.35, balance: 5.35 });
    await expectOneBatch(brand.brandId);
  });

  it('links two orders naming the same claim to it, and gives the claim the first order’s id, as written one after the other', async () => {
    const { brand, ann } = await brandWithAdvocate();
    const claim = await t.http.post('/api/v1/track/claim').set(brand.headers).send({ referral_code: ann.code, email: 'sam@example.com', raw_value: 40 });
    expect(claim.status).toBe(201);
    const claimId = claim.body.data.claim_id;
    const base = uniqueOrderId();

    const answers = await together(brand.headers, [
      { order_id: `${base}-b`, email: 'sam@example.com', order_value: 30, claim_id: claimId },
      { order_id: `${base}-a`, email: 'sam@example.com', order_value: 40, claim_id: claimId },
    ]);

    expect(answers.map((answer) => [answer.status, answer.body.data.claim_id])).toEqual([[201, claimId], [201, claimId]]);
    expect(await t.db('claims').where({ brand_id: brand.brandId, claim_id: claimId }).first()).toMatchObject({ status: 'converted', order_id: `${base}-a` });
    expect(await balanceOf(brand.headers, ann.advocateId)).toMatchObject({ credited: 10 });
    await expectOneBatch(brand.brandId);
  });

  it('answers a batch of repeats from one statement and no transaction, as stored; a batch with a new order reads the conversions once', async () => {
    const { brand, ann } = await brandWithAdvocate();
    const base = uniqueOrderId();
    const orders = ['a', 'b', 'c'].map((suffix) => ({ order_id: `${base}-${suffix}`, email: `${suffix}@example.com`, order_value: 50, referral_code: ann.code }));
    const first = await together(brand.headers, orders);
    expect(first.map((answer) => answer.status)).toEqual([201, 201, 201]);

    const statements: string[] = [];
    const record = (query: { sql: string }) => statements.push(query.sql);
    t.db.on('query', record);
    try {
      const repeats = await together(brand.headers, orders);
      expect(repeats.map((answer) => [answer.status, answer.body.data.duplicate])).toEqual([[200, true], [200, true], [200, true]]);
      expect(repeats.map((answer) => answer.body.data.id)).toEqual(first.map((answer) => answer.body.data.id));
      expect(repeats[0]!.body.data).toMatchObject({ status: 'completed', order_value: 50, referrer_reward_paid: 5, review: null });
      const batchStatements = statements.filter((sql) => !/rate_limits|api_keys|brands/.test(sql));
      expect(batchStatements).toHaveLength(1);
      expect(batchStatements[0]).toMatch(/FROM conversions|from "conversions"/i);

      statements.length = 0;
      const mixed = await together(brand.headers, [...orders, { order_id: `${base}-d`, email: 'd@example.com', order_value: 50, referral_code: ann.code }]);
      expect(mixed.map((answer) => answer.status)).toEqual([200, 200, 200, 201]);
      // The conversions read before the transaction are not read again inside it.
      expect(statements.filter((sql) => sql.includes('AS k(brand_id uuid, order_id text)'))).toHaveLength(1);
      expect(statements.filter((sql) => /^BEGIN/i.test(sql.trim()))).toHaveLength(1);
    } finally {
      t.db.removeListener('query', record);
    }
    expect(await t.db('conversions').where({ brand_id: brand.brandId })).toHaveLength(4);
  });

  it('answers a pending order reported completed between new orders of one batch: rewarded once, the new orders each created', async () => {
    const { brand, ann } = await brandWithAdvocate();
    const base = uniqueOrderId();
    const pending = await t.http.post('/api/v1/track/conversion').set(brand.headers)
      .send({ order_id: `${base}-b`, email: 'b@example.com', order_value: 50, referral_code: ann.code, status: 'pending' });
    expect(pending.status).toBe(201);
    expect(await balanceOf(brand.headers, ann.advocateId)).toMatchObject({ credited: 0 });

    // In key order: a (new), b (the repeat, now completed), c (new), and c's content-hash cousin without order id.
    const [a, b, c, hashed] = await together(brand.headers, [
      { order_id: `${base}-a`, email: 'a@example.com', order_value: 50, referral_code: ann.code },
      { order_id: `${base}-b`, email: 'b@example.com', order_value: 50, referral_code: ann.code, status: 'completed' },
      { order_id: `${base}-c`, email: 'c@example.com', order_value: 50, referral_code: ann.code },
      { customer_email: `${base}@example.com`, order_total: 20, tax: 0, shipping: 0, discount: 0, referral_code: ann.code },
    ]);

    expect([a!.status, a!.body.data.duplicate]).toEqual([201, false]);
    expect(b!.status).toBe(200);
    expect(b!.body.data).toMatchObject({ id: pending.body.data.id, duplicate: true, status: 'completed' });
    expect([c!.status, c!.body.data.duplicate]).toEqual([201, false]);
    expect([hashed!.status, hashed!.body.data.order_id]).toEqual([201, null]);
    expect(await t.db('rewards').where({ brand_id: brand.brandId })).toHaveLength(4);
    expect(await balanceOf(brand.headers, ann.advocateId)).toMatchObject({ credited: 20, balance: 20 });
  });
});

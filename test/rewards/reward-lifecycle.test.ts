import { getBrand } from '../../core/brands/brand';
import { conversionInputSchema } from '../../core/conversions/conversion-input';
import { recordPaidOrder } from '../../core/conversions/record-paid-order';
import { rewardBalance } from '../../core/ledger/reward-ledger';
import { approveDueRewards, approveReward, voidReward } from '../../core/rewards/reward-transitions';
import { type TestBrand, givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

const DAY_MS = 24 * 3600 * 1000;

/** A brand paying 10 % of each order; `reward_hold_days` omitted = the default (30). */
async function brandWithAdvocate(settings: Parameters<typeof givenBrand>[1] = {}) {
  const brand = await givenBrand(t.db, { reward_type: 'percentage', reward_value: 10, ...settings });
  const advocate = await givenAdvocate(t.db, brand.brandId);
  return { brand, advocate };
}

/** A converted order of `value` and its reward's id. */
async function order(brand: TestBrand, code: string, value = 100) {
  const orderId = uniqueOrderId();
  const response = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: `buyer-${orderId}@example.com`, order_id: orderId, order_value: value, referral_code: code });
  expect(response.status).toBe(201);
  const reward = await t.db('rewards').where({ brand_id: brand.brandId, conversion_id: response.body.data.id }).first();
  return { orderId, rewardId: Number(reward.reward_id) };
}

const figures = (brandId: string, advocateId: number) => rewardBalance(t.db, brandId, advocateId);
const reward = (brand: TestBrand, rewardId: number) => t.http.get(`/api/v1/rewards/${rewardId}`).set(brand.headers);
const refund = (brand: TestBrand, body: object) => t.http.post('/api/v1/track/refund').set(brand.headers).send(body);
const endHold = (brandId: string, rewardId: number) =>
  t.db('rewards').where({ brand_id: brandId, reward_id: rewardId }).update({ hold_until: t.db.raw(`now() - interval '1 second'`) });

describe('the reward hold and the approval job', () => {
  it('holds a new reward for 30 days by default, not spendable, and the approval job approves it once the hold is over', async () => {
    const { brand, advocate } = await brandWithAdvocate();
    const { rewardId } = await order(brand, advocate.code);

    const held = (await reward(brand, rewardId)).body.data;
    expect(held).toMatchObject({ reward_id: rewardId, advocate_id: advocate.advocateId, amount: 10, status: 'pending', approved_at: null, paid_amount: 0 });
    const holdMs = new Date(held.hold_until).getTime() - new Date(held.created_at).getTime();
    expect(Math.abs(holdMs - 30 * DAY_MS)).toBeLessThan(60_000);
    expect(await figures(brand.brandId, advocate.advocateId)).toEqual({
      advocate_id: advocate.advocateId, currency: 'USD', credited: 0, reversed: 0, redeemed: 0, balance: 0, pending: 10, approved: 0, paid: 0, issued: 0, voided: 0, payable: 0, owed: 0,
    });

    await approveDueRewards(t.db);
    expect((await reward(brand, rewardId)).body.data.status).toBe('pending');

    await endHold(brand.brandId, rewardId);
    await approveDueRewards(t.db);
    await approveDueRewards(t.db);
    const approved = (await reward(brand, rewardId)).body.data;
    expect(approved).toMatchObject({ status: 'approved', approved_at: expect.any(String) });
    expect(approved.history.map((entry: { kind: string; amount: number; actor: string; reason: string }) => [entry.kind, entry.amount, entry.actor, entry.reason])).toEqual([
      ['hold', 10, 'system', 'conversion completed'],
      ['release', -10, 'system', 'hold period ended'],
      ['credit', 10, 'system', 'hold period ended'],
    ]);
    expect(await figures(brand.brandId, advocate.advocateId)).toEqual({
      advocate_id: advocate.advocateId, currency: 'USD', credited: 10, reversed: 0, redeemed: 0, balance: 10, pending: 0, approved: 10, paid: 0, issued: 0, voided: 0, payable: 10, owed: 0,
    });
  });

  it('approves at once, as before, when the brand holds rewards 0 days', async () => {
    const { brand, advocate } = await brandWithAdvocate({ reward_hold_days: 0 });
    const { rewardId } = await order(brand, advocate.code, 80);
    expect((await reward(brand, rewardId)).body.data).toMatchObject({ status: 'approved', amount: 8, history: [{ kind: 'credit', amount: 8, actor: 'system' }] });
    expect(await figures(brand.brandId, advocate.advocateId)).toMatchObject({ credited: 8, balance: 8, pending: 0, approved: 8 });
  });
});

describe('refunds and the reward lifecycle', () => {
  it('reduces the pending reward pro rata when the order is refunded during the hold, and approves what is left', async () => {
    const { brand, advocate } = await brandWithAdvocate();
    const { orderId, rewardId } = await order(brand, advocate.code);
    const first = await refund(brand, { order_id: orderId, refund_amount: 40, is_full_refund: false, refund_id: 'r-1' });
    expect(first.body.data).toMatchObject({ status: 'partial_refund', reward_reversed: 4 });
    expect((await reward(brand, rewardId)).body.data.status).toBe('pending');
    expect(await figures(brand.brandId, advocate.advocateId)).toMatchObject({ pending: 6, credited: 0, reversed: 0, balance: 0 });

    await endHold(brand.brandId, rewardId);
    await approveDueRewards(t.db);
    expect(await figures(brand.brandId, advocate.advocateId)).toMatchObject({ pending: 0, credited: 6, approved: 6, balance: 6 });

    // After approval a refund reverses the approved amount: 70 of 100 refunded in all → 7 of the reward of 10.
    const second = await refund(brand, { order_id: orderId, refund_amount: 30, is_full_refund: false, refund_id: 'r-2' });
    expect(second.body.data).toMatchObject({ reward_reversed: 3 });
    expect(await figures(brand.brandId, advocate.advocateId)).toMatchObject({ pending: 0, credited: 6, reversed: 3, approved: 3, balance: 3 });
  });

  it('voids the pending reward when the order is refunded in full during the hold', async () => {
    const { brand, advocate } = await brandWithAdvocate();
    const { orderId, rewardId } = await order(brand, advocate.code);
    await refund(brand, { order_id: orderId, refund_amount: 25, is_full_refund: false });
    const full = await refund(brand, { order_id: orderId, refund_amount: 75, is_full_refund: true });
    expect(full.body.data).toMatchObject({ status: 'refunded', reward_reversed: 7.5 });
    const voided = (await reward(brand, rewardId)).body.data;
    expect(voided).toMatchObject({ status: 'voided', void_reason: 'order refunded in full', voided_at: expect.any(String) });
    expect(voided.history.map((entry: { kind: string; amount: number }) => [entry.kind, entry.amount])).toEqual([
      ['hold', 10],
      ['hold_reversal', -2.5],
      ['hold_reversal', -7.5],
      ['hold_void', 0],
    ]);
    expect(await figures(brand.brandId, advocate.advocateId)).toMatchObject({ pending: 0, approved: 0, balance: 0 });
    await endHold(brand.brandId, rewardId);
    await approveDueRewards(t.db);
    expect((await reward(brand, rewardId)).body.data.status).toBe('voided');
  });

  it('reverses the approved reward pro rata after approval, as before', async () => {
    const { brand, advocate } = await brandWithAdvocate({ reward_hold_days: 0 });
    const { orderId, rewardId } = await order(brand, advocate.code);
    const partial = await refund(brand, { order_id: orderId, refund_amount: 40, is_full_refund: false });
    expect(partial.body.data).toMatchObject({ reward_reversed: 4 });
    expect((await reward(brand, rewardId)).body.data.status).toBe('approved');
    expect(await figures(brand.brandId, advocate.advocateId)).toMatchObject({ credited: 10, reversed: 4, approved: 6, balance: 6, pending: 0 });
  });
});

describe('POST /api/v1/rewards/{id}/approve and /void', () => {
  it('approves a pending reward early, recording the API key as who did it', async () => {
    const { brand, advocate } = await brandWithAdvocate();
    const { rewardId } = await order(brand, advocate.code);
    const approved = await t.http.post(`/api/v1/rewards/${rewardId}/approve`).set(brand.headers).send({ reason: 'trusted advocate' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ success: true, data: { reward_id: rewardId, status: 'approved', amount: 10 } });
    const history = (await reward(brand, rewardId)).body.data.history;
    expect(history.slice(1)).toEqual([
      expect.objectContaining({ kind: 'release', amount: -10, actor: `api_key:${brand.keyId}`, reason: 'trusted advocate' }),
      expect.objectContaining({ kind: 'credit', amount: 10, actor: `api_key:${brand.keyId}`, reason: 'trusted advocate' }),
    ]);
    expect(await figures(brand.brandId, advocate.advocateId)).toMatchObject({ balance: 10, approved: 10, pending: 0 });
  });

  it('voids an approved reward with its reason, then answers 409 to voiding or approving it again', async () => {
    const { brand, advocate } = await brandWithAdvocate({ reward_hold_days: 0 });
    const { rewardId } = await order(brand, advocate.code);
    const voided = await t.http.post(`/api/v1/rewards/${rewardId}/void`).set(brand.headers).send({ reason: 'self-referral ring' });
    expect(voided.status).toBe(200);
    expect(voided.body.data).toMatchObject({ status: 'voided', void_reason: 'self-referral ring', voided_at: expect.any(String) });
    expect(await figures(brand.brandId, advocate.advocateId)).toMatchObject({ credited: 10, approved: 0, voided: 10, balance: 0, payable: 0 });

    const again = await t.http.post(`/api/v1/rewards/${rewardId}/void`).set(brand.headers).send({ reason: 'twice' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ success: false, error: `reward ${rewardId} is already voided`, code: 'conflict' });
    const approve = await t.http.post(`/api/v1/rewards/${rewardId}/approve`).set(brand.headers).send({});
    expect(approve.status).toBe(409);
    expect(approve.body).toEqual({ success: false, error: `reward ${rewardId} is voided and cannot be approved`, code: 'conflict' });
    expect(await t.db('reward_ledger').where({ brand_id: brand.brandId, reward_id: rewardId })).toHaveLength(2);
  });

  it('answers 409 to approving an approved reward, and takes an approve without a body', async () => {
    const { brand, advocate } = await brandWithAdvocate();
    const { rewardId } = await order(brand, advocate.code);
    expect((await t.http.post(`/api/v1/rewards/${rewardId}/approve`).set(brand.headers)).status).toBe(200);
    const again = await t.http.post(`/api/v1/rewards/${rewardId}/approve`).set(brand.headers);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe(`reward ${rewardId} is already approved`);
    expect(await figures(brand.brandId, advocate.advocateId)).toMatchObject({ credited: 10, approved: 10 });
  });

  it('refuses a void without a reason (400 naming it) and changes nothing', async () => {
    const { brand, advocate } = await brandWithAdvocate();
    const { rewardId } = await order(brand, advocate.code);
    for (const body of [{}, { reason: '  ' }, { reason: 42 }]) {
      const response = await t.http.post(`/api/v1/rewards/${rewardId}/void`).set(brand.headers).send(body);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('invalid_request');
      expect(response.body.error).toMatch(/^reason\b/);
    }
    expect((await reward(brand, rewardId)).body.data).toMatchObject({ status: 'pending', history: [{ kind: 'hold' }] });
  });

  it("answers 404 for another brand's reward and for an unknown one, 400 for an id that is not one", async () => {
    const { brand, advocate } = await brandWithAdvocate();
    const other = await givenBrand(t.db);
    const { rewardId } = await order(brand, advocate.code);
    for (const request of [
      t.http.get(`/api/v1/rewards/${rewardId}`).set(other.headers),
      t.http.post(`/api/v1/rewards/${rewardId}/approve`).set(other.headers).send({}),
      t.http.post(`/api/v1/rewards/${rewardId}/void`).set(other.headers).send({ reason: 'not mine' }),
      t.http.get('/api/v1/rewards/999999999').set(brand.headers),
    ]) {
      const response = await request;
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ success: false, code: 'not_found', error: expect.stringMatching(/^reward \d+ not found$/) });
    }
    const malformed = await t.http.get('/api/v1/rewards/abc').set(brand.headers);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBe('id: must be a positive integer reward id');
    expect((await reward(brand, rewardId)).body.data.status).toBe('pending');
  });
});

describe('GET /api/v1/advocates/{id}/balance', () => {
  it('answers the advocate’s figures in the brand’s currency; 404 for another brand’s advocate, 400 for a malformed id', async () => {
    const { brand, advocate } = await brandWithAdvocate();
    await order(brand, advocate.code, 100);
    const response = await t.http.get(`/api/v1/advocates/${advocate.advocateId}/balance`).set(brand.headers);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: { advocate_id: advocate.advocateId, currency: 'USD', credited: 0, reversed: 0, redeemed: 0, balance: 0, pending: 10, approved: 0, paid: 0, issued: 0, voided: 0, payable: 0, owed: 0 },
    });

    const other = await givenBrand(t.db);
    const foreign = await t.http.get(`/api/v1/advocates/${advocate.advocateId}/balance`).set(other.headers);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ success: false, error: `advocate ${advocate.advocateId} not found` });
    const malformed = await t.http.get('/api/v1/advocates/abc/balance').set(brand.headers);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toContain('id');
    expect((await t.http.get(`/api/v1/advocates/${advocate.advocateId}/balance`)).status).toBe(401);
  });
});

describe('GET /api/v1/rewards', () => {
  it('lists rewards newest first, filtered by status and advocate, a page at a time', async () => {
    const { brand, advocate } = await brandWithAdvocate();
    const other = await givenAdvocate(t.db, brand.brandId);
    const a1 = await order(brand, advocate.code);
    const a2 = await order(brand, advocate.code);
    const a3 = await order(brand, advocate.code);
    await order(brand, other.code);
    await t.http.post(`/api/v1/rewards/${a2.rewardId}/approve`).set(brand.headers).send({});

    const first = await t.http.get(`/api/v1/rewards?status=pending&advocate_id=${advocate.advocateId}&limit=1`).set(brand.headers);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ success: true, has_more: true, next_cursor: a3.rewardId });
    expect(first.body.data.map((row: { reward_id: number }) => row.reward_id)).toEqual([a3.rewardId]);
    const second = await t.http.get(`/api/v1/rewards?status=pending&advocate_id=${advocate.advocateId}&limit=1&cursor=${first.body.next_cursor}`).set(brand.headers);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.body.data.map((row: { reward_id: number }) => row.reward_id)).toEqual([a1.rewardId]);

    const all = await t.http.get('/api/v1/rewards').set(brand.headers);
    expect(all.body.data).toHaveLength(4);
    const approved = await t.http.get('/api/v1/rewards?status=approved').set(brand.headers);
    expect(approved.body.data.map((row: { reward_id: number }) => row.reward_id)).toEqual([a2.rewardId]);
  });

  it('answers 400 naming the parameter for a bad status, advocate or limit', async () => {
    const { brand } = await brandWithAdvocate();
    for (const [query, field] of [['status=paid', 'status'], ['advocate_id=x', 'advocate_id'], ['limit=0', 'limit'], ['limit=101', 'limit']]) {
      const response = await t.http.get(`/api/v1/rewards?${query}`).set(brand.headers);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatch(new RegExp(`^${field}\\b`));
    }
  });
});

describe('rewards in review (for the fraud review queue)', () => {
  async function reviewedOrder(holdDays: number) {
    const { brand, advocate } = await brandWithAdvocate({ reward_hold_days: holdDays });
    const record = await getBrand(t.db, brand.brandId);
    const conversion = conversionInputSchema.parse({ email: 'review@example.com', order_id: uniqueOrderId(), order_value: 50, referral_code: advocate.code });
    const paid = await t.db.transaction((trx) => recordPaidOrder(trx, record, { conversion, reward_in_review: true }));
    expect(paid.result.attributed).toBe(true);
    const row = await t.db('rewards').where({ brand_id: brand.brandId }).first();
    return { brand, record, advocate, rewardId: Number(row.reward_id), status: row.status };
  }

  it('creates the reward in review, held; approving it while the hold runs makes it pending, and the job approves it later', async () => {
    const { brand, record, advocate, rewardId, status } = await reviewedOrder(30);
    expect(status).toBe('in_review');
    expect(await figures(brand.brandId, advocate.advocateId)).toMatchObject({ pending: 5, balance: 0 });
    const reviewed = await t.db.transaction((trx) => approveReward(trx, record, { reward_id: rewardId, actor: 'reviewer:7', reason: 'looks fine' }));
    expect(reviewed.status).toBe('pending');
    await endHold(brand.brandId, rewardId);
    await approveDueRewards(t.db);
    const history = (await reward(brand, rewardId)).body.data.history;
    expect(history.map((entry: { kind: string; actor: string }) => [entry.kind, entry.actor])).toEqual([
      ['hold', 'system'],
      ['review', 'reviewer:7'],
      ['release', 'system'],
      ['credit', 'system'],
    ]);
    expect(await figures(brand.brandId, advocate.advocateId)).toMatchObject({ pending: 0, approved: 5, balance: 5 });
  });

  it('is not approved by the job while in review, approves straight to approved once the hold is over, and voids from review', async () => {
    const held = await reviewedOrder(0);
    await approveDueRewards(t.db);
    expect((await reward(held.brand, held.rewardId)).body.data.status).toBe('in_review');
    const approved = await t.db.transaction((trx) => approveReward(trx, held.record, { reward_id: held.rewardId, actor: 'reviewer:7' }));
    expect(approved.status).toBe('approved');
    expect(await figures(held.brand.brandId, held.advocate.advocateId)).toMatchObject({ pending: 0, approved: 5, balance: 5 });

    const refused = await reviewedOrder(30);
    const voided = await t.db.transaction((trx) => voidReward(trx, refused.record, { reward_id: refused.rewardId, actor: 'reviewer:7', reason: 'fraud' }));
    expect(voided).toMatchObject({ status: 'voided', void_reason: 'fraud' });
    expect(await figures(refused.brand.brandId, refused.advocate.advocateId)).toMatchObject({ pending: 0, voided: 5, balance: 0 });
  });
});

describe('redemptions spend approved rewards only, unless the brand allows pending', () => {
  const eligibility = (brand: TestBrand, code: string, email: string) =>
    t.http.post('/api/v1/track/check-eligibility').set(brand.headers).send({ referral_code: code, customer_email: email, type: 'advocate' });
  const advocateClaim = (brand: TestBrand, code: string, email: string) =>
    t.http.post('/api/v1/track/claim').set(brand.headers).send({ referral_code: code, email, type: 'advocate', raw_value: 50 });

  it('refuses an advocate claim against a pending reward (no_reward_available), and accepts it once approved', async () => {
    const { brand, advocate } = await brandWithAdvocate({ plan: 'premier' });
    const { rewardId } = await order(brand, advocate.code);
    expect((await eligibility(brand, advocate.code, advocate.email)).body).toMatchObject({ eligible: false, error: 'no_reward_available' });
    const refused = await advocateClaim(brand, advocate.code, advocate.email);
    expect(refused.status).toBe(400);
    expect(refused.body.error_code).toBe('no_reward_available');

    await t.http.post(`/api/v1/rewards/${rewardId}/approve`).set(brand.headers).send({});
    expect((await eligibility(brand, advocate.code, advocate.email)).body).toEqual({ eligible: true });
    const claim = await advocateClaim(brand, advocate.code, advocate.email);
    expect(claim.status).toBe(201);
    expect(claim.body.data).toMatchObject({ discount_applied: 10, claim_value: 40 });
    expect(await figures(brand.brandId, advocate.advocateId)).toMatchObject({ approved: 10, redeemed: 10, balance: 0, payable: 0 });
  });

  it('lets an advocate spend a pending reward where the brand allows pending redemption', async () => {
    const { brand, advocate } = await brandWithAdvocate({ plan: 'premier', allow_pending_redemption: true });
    await order(brand, advocate.code);
    expect(await figures(brand.brandId, advocate.advocateId)).toMatchObject({ pending: 10, approved: 0, balance: 10, payable: 0 });
    expect((await eligibility(brand, advocate.code, advocate.email)).body).toEqual({ eligible: true });
    const claim = await advocateClaim(brand, advocate.code, advocate.email);
    expect(claim.status).toBe(201);
    expect(claim.body.data).toMatchObject({ discount_applied: 10 });
    expect(await figures(brand.brandId, advocate.advocateId)).toMatchObject({ pending: 10, redeemed: 10, balance: 0, payable: 0 });
  });
});

describe('GET /api/v1/openapi.json for the rewards endpoints', () => {
  it('documents the list filters, the path id and the void reason from the zod schemas', async () => {
    const { paths } = (await t.http.get('/api/v1/openapi.json')).body;
    expect(paths['/api/v1/rewards'].get.parameters.map((parameter: { name: string; in: string }) => `${parameter.in}:${parameter.name}`)).toEqual([
      'query:status', 'query:advocate_id', 'query:limit', 'query:cursor',
    ]);
    expect(paths['/api/v1/rewards'].get.parameters[0].schema.enum).toEqual(['in_review', 'pending', 'approved', 'voided']);
    expect(paths['/api/v1/rewards/{id}'].get.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path', required: true })]);
    expect(paths['/api/v1/rewards/{id}/void'].post.requestBody.content['application/json'].schema.required).toEqual(['reason']);
    expect(paths['/api/v1/rewards/{id}/approve'].post.responses['409']).toBeDefined();
  });
});

import { rewardBalance } from '../../core/ledger/reward-ledger';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

type Headers = Record<string, string>;

const balance = (brandId: string, advocateId: number) => rewardBalance(t.db, brandId, advocateId).then((b) => b.balance);
const approve = (headers: Headers, reviewId: number, body?: object) => {
  const request = t.http.post(`/api/v1/reviews/${reviewId}/approve`).set(headers);
  return body ? request.send(body) : request;
};
const reject = (headers: Headers, reviewId: number, body: object) => t.http.post(`/api/v1/reviews/${reviewId}/reject`).set(headers).send(body);
const refund = (headers: Headers, body: object) => t.http.post('/api/v1/track/refund').set(headers).send(body);

/** A brand paying 10 % of the order; one order of 100 from a disposable address, held for review. */
async function heldOrder(fields: object = {}, holdDays = 0) {
  const brand = await givenBrand(t.db, { reward_type: 'percentage', reward_value: 10, reward_hold_days: holdDays });
  const advocate = await givenAdvocate(t.db, brand.brandId);
  const orderId = uniqueOrderId();
  const body = { email: 'shopper@mailinator.com', order_id: orderId, order_value: 100, referral_code: advocate.code, ...fields };
  const response = await t.http.post('/api/v1/track/conversion').set(brand.headers).send(body);
  expect(response.status).toBe(201);
  expect(response.body.data.review).toMatchObject({ status: 'open' });
  return { brand, advocate, orderId, body, conversionId: response.body.data.id as number, reviewId: response.body.data.review.review_id as number };
}

describe('a held conversion', () => {
  it('is recorded with its reward, and the advocate’s balance stays unchanged while it is held', async () => {
    const { brand, advocate, conversionId, reviewId } = await heldOrder();
    const stored = await t.db('conversions').where({ brand_id: brand.brandId, conversion_id: conversionId }).first();
    expect(stored).toMatchObject({ status: 'completed', referrer_reward_paid: '10.00' });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(0);
    expect(await t.db('referral_reviews').where({ brand_id: brand.brandId })).toEqual([
      expect.objectContaining({ review_id: String(reviewId), conversion_id: String(conversionId), status: 'open', decided_at: null }),
    ]);
  });

  it('is answered as a duplicate with the same review when the order is sent again, without a second review', async () => {
    const { brand, body, reviewId } = await heldOrder();
    const again = await t.http.post('/api/v1/track/conversion').set(brand.headers).send(body);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ duplicate: true, review: { review_id: reviewId, status: 'open', reasons: [{ code: 'disposable_email' }] } });
    expect(await t.db('referral_reviews').where({ brand_id: brand.brandId })).toHaveLength(1);
  });

  it('opens one review when the same flagged order arrives 5 times at once', async () => {
    const brand = await givenBrand(t.db);
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const body = { email: 'race@mailinator.com', order_id: uniqueOrderId(), order_value: 50, referral_code: advocate.code };
    const responses = await Promise.all(Array.from({ length: 5 }, () => t.http.post('/api/v1/track/conversion').set(brand.headers).send(body)));
    expect(responses.map((response) => response.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(await t.db('referral_reviews').where({ brand_id: brand.brandId })).toHaveLength(1);
  });
});

describe('POST /api/v1/reviews/{id}/approve and /reject', () => {
  it('approve credits the reward once; approving again is 409 and credits nothing more', async () => {
    const { brand, advocate, reviewId } = await heldOrder();
    const approved = await approve(brand.headers, reviewId, { note: 'known customer', decided_by: 'ops@brand.example' });
    expect(approved.status).toBe(200);
    expect(approved.body.data).toMatchObject({
      reward_credited: 10,
      review: { review_id: reviewId, status: 'approved', decided_by: 'ops@brand.example', note: 'known customer', decided_at: expect.any(String) },
    });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(10);

    const twice = await approve(brand.headers, reviewId);
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ success: false, code: 'conflict', error: `review ${reviewId} was already approved`, review_status: 'approved' });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(10);
  });

  it('reject never credits the reward; a later approve is 409', async () => {
    const { brand, advocate, reviewId } = await heldOrder();
    const rejected = await reject(brand.headers, reviewId, { reason: 'same household as the advocate' });
    expect(rejected.status).toBe(200);
    expect(rejected.body.data).toMatchObject({ reward_credited: 0, review: { status: 'rejected', note: 'same household as the advocate', decided_by: 'api' } });
    const approvedLater = await approve(brand.headers, reviewId);
    expect(approvedLater.status).toBe(409);
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(0);
  });

  it('moves the reward from review to pending when the brand’s hold still runs, and rejecting voids it', async () => {
    const held = await heldOrder({}, 30);
    const rewardOf = (conversionId: number) => t.db('rewards').where({ brand_id: held.brand.brandId, conversion_id: conversionId }).first();
    expect(await rewardOf(held.conversionId)).toMatchObject({ status: 'in_review', amount: '10.00' });

    const approved = await approve(held.brand.headers, held.reviewId);
    expect(approved.status).toBe(200);
    expect(approved.body.data.reward_credited).toBe(0);
    expect(await rewardOf(held.conversionId)).toMatchObject({ status: 'pending' });
    expect(await rewardBalance(t.db, held.brand.brandId, held.advocate.advocateId)).toMatchObject({ pending: 10, approved: 0, balance: 0 });

    const second = await t.http.post('/api/v1/track/conversion').set(held.brand.headers)
      .send({ email: 'other@mailinator.com', order_id: uniqueOrderId(), order_value: 50, referral_code: held.advocate.code });
    await reject(held.brand.headers, second.body.data.review.review_id, { reason: 'throwaway address' });
    expect(await rewardOf(second.body.data.id)).toMatchObject({ status: 'voided', void_reason: 'fraud review rejected: throwaway address' });
    expect(await rewardBalance(t.db, held.brand.brandId, held.advocate.advocateId)).toMatchObject({ pending: 10, voided: 5, balance: 0 });
  });

  it('answers 404 for another brand’s review and changes nothing', async () => {
    const { brand, advocate, reviewId } = await heldOrder();
    const stranger = await givenBrand(t.db);
    expect((await approve(stranger.headers, reviewId)).status).toBe(404);
    expect((await reject(stranger.headers, reviewId, { reason: 'x' })).status).toBe(404);
    expect(await t.db('referral_reviews').where({ brand_id: brand.brandId, review_id: reviewId }).first()).toMatchObject({ status: 'open' });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(0);
  });

  it.each([
    ['reject without a reason', (h: Headers, id: number) => reject(h, id, {}), 'reason is required'],
    ['reject with an empty reason', (h: Headers, id: number) => reject(h, id, { reason: '  ' }), 'reason: must not be empty'],
    ['a review id that is not a number', (h: Headers) => approve(h, 'abc' as unknown as number), 'id: must be a positive integer review id'],
    ['an approve body that is not JSON', (h: Headers, id: number) => t.http.post(`/api/v1/reviews/${id}/approve`).set({ ...h, 'Content-Type': 'application/json' }).send('{oops'), 'request body is not valid JSON'],
  ])('answers 400 naming the field for %s', async (_name, send, message) => {
    const { brand, reviewId } = await heldOrder();
    const response = await send(brand.headers, reviewId);
    expect(response.status).toBe(400);
    expect(response.body.error).toBe(message);
    expect(await t.db('referral_reviews').where({ brand_id: brand.brandId, review_id: reviewId }).first()).toMatchObject({ status: 'open' });
  });
});

describe('refunds of a held conversion', () => {
  it('work while it is held (the held reward shrinks pro rata); approval then credits only what the refunds left', async () => {
    const { brand, advocate, orderId, reviewId } = await heldOrder();
    const partial = await refund(brand.headers, { order_id: orderId, refund_amount: 40, is_full_refund: false });
    expect(partial.status).toBe(200);
    // 40 % of the 10.00 reward leaves the held (in-review) amount; nothing was spendable.
    expect(partial.body.data).toMatchObject({ status: 'partial_refund', reward_reversed: 4 });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(0);

    const approved = await approve(brand.headers, reviewId);
    expect(approved.body.data.reward_credited).toBe(6);
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(6);

    const rest = await refund(brand.headers, { order_id: orderId, refund_amount: 30, is_full_refund: false });
    expect(rest.body.data).toMatchObject({ reward_reversed: 3 });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(3);
  });

  it('approving a fully refunded held conversion credits nothing', async () => {
    const { brand, advocate, orderId, reviewId } = await heldOrder();
    await refund(brand.headers, { order_id: orderId, refund_amount: 100, is_full_refund: true });
    const approved = await approve(brand.headers, reviewId);
    expect(approved.status).toBe(200);
    expect(approved.body.data.reward_credited).toBe(0);
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(0);
  });
});

describe('a held pending conversion', () => {
  it('is credited when it completes only after it was approved', async () => {
    const { brand, advocate, body, reviewId } = await heldOrder({ status: 'pending' });
    const approved = await approve(brand.headers, reviewId);
    expect(approved.body.data.reward_credited).toBe(0);
    const completed = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ ...body, status: 'completed' });
    expect(completed.body.data).toMatchObject({ status: 'completed', duplicate: true, review: { status: 'approved' } });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(10);
  });

  it('is not credited when it completes while its review is open', async () => {
    const { brand, advocate, body } = await heldOrder({ status: 'pending' });
    const completed = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ ...body, status: 'completed' });
    expect(completed.body.data).toMatchObject({ status: 'completed', review: { status: 'open' } });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(0);
  });
});

describe('GET /api/v1/reviews', () => {
  it('lists the brand’s reviews oldest first with their conversion and reasons, filtered by status and paged', async () => {
    const brand = await givenBrand(t.db);
    const advocate = await givenAdvocate(t.db, brand.brandId, { first_name: 'Dana' });
    const ids: number[] = [];
    for (const email of ['one@mailinator.com', 'two@mailinator.com', 'three@mailinator.com']) {
      const response = await t.http.post('/api/v1/track/conversion').set(brand.headers)
        .send({ email, order_id: `order-${email}`, order_value: 20, referral_code: advocate.code, ip_address: '192.0.2.9' });
      ids.push(response.body.data.review.review_id);
    }
    await reject(brand.headers, ids[1]!, { reason: 'bot' });
    const other = await givenBrand(t.db);
    expect((await t.http.get('/api/v1/reviews').set(other.headers)).body.data).toEqual({ reviews: [], next_after: null });

    const first = await t.http.get('/api/v1/reviews?status=open&limit=1').set(brand.headers);
    expect(first.status).toBe(200);
    expect(first.body.data.next_after).toBe(ids[0]);
    expect(first.body.data.reviews).toEqual([
      expect.objectContaining({
        review_id: ids[0],
        status: 'open',
        advocate_id: advocate.advocateId,
        reasons: [{ code: 'disposable_email', detail: 'mailinator.com is a disposable email provider' }],
        conversion: expect.objectContaining({ order_id: 'order-one@mailinator.com', email: 'one@mailinator.com', order_value: 20, referrer_reward_paid: 10, ip_address: '192.0.2.9', status: 'completed' }),
        advocate: { email: advocate.email, first_name: 'Dana' },
      }),
    ]);
    const second = await t.http.get(`/api/v1/reviews?status=open&limit=1&after=${ids[0]}`).set(brand.headers);
    expect(second.body.data.reviews.map((review: { review_id: number }) => review.review_id)).toEqual([ids[2]]);
    expect(second.body.data.next_after).toBeNull();
    const all = await t.http.get('/api/v1/reviews').set(brand.headers);
    expect(all.body.data.reviews.map((review: { status: string }) => review.status)).toEqual(['open', 'rejected', 'open']);
  });

  it.each([
    ['status=closed', 'status'],
    ['limit=0', 'limit: must be an integer from 1 to 200'],
    ['after=x', 'after: must be a review id'],
  ])('answers 400 naming the parameter for ?%s', async (query, message) => {
    const brand = await givenBrand(t.db);
    const response = await t.http.get(`/api/v1/reviews?${query}`).set(brand.headers);
    expect(response.status).toBe(400);
    expect(response.body.error).toContain(message);
  });

  it('needs the API key', async () => {
    expect((await t.http.get('/api/v1/reviews')).status).toBe(401);
  });
});

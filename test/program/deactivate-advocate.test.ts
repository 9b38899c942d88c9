import { runCli } from '../../server/cli/run-cli';
import { queueReengagement } from '../../core/mail/reengagement';
import { type TestBrand, givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp, testConfig } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

const deactivate = (brand: TestBrand, advocateId: number | string) => t.http.post(`/api/v1/advocates/${advocateId}/deactivate`).set(brand.headers);
const reactivate = (brand: TestBrand, advocateId: number | string) => t.http.post(`/api/v1/advocates/${advocateId}/reactivate`).set(brand.headers);
const order = (brand: TestBrand, body: Record<string, unknown>) =>
  t.http.post('/api/v1/track/conversion').set(brand.headers).send({ order_id: uniqueOrderId(), order_value: 100, ...body });

/** A premier brand (visits and claims) with an advocate who already referred one paid order. */
async function advocateWithHistory() {
  const brand = await givenBrand(t.db, { plan: 'premier', reward_hold_days: 0, reward_value: 20 });
  const ann = await givenAdvocate(t.db, brand.brandId, { first_name: 'Ann' });
  const earlier = await order(brand, { email: 'before@deactivate.example', referral_code: ann.code });
  expect(earlier.body.data.advocate_id).toBe(ann.advocateId);
  return { brand, ann, earlier: earlier.body.data as { conversion_id: number; order_id: string } };
}

describe('POST /api/v1/advocates/{id}/deactivate', () => {
  it('answers 200 with the advocate deactivated; twice changes nothing; the list filters by status', async () => {
    const { brand, ann } = await advocateWithHistory();
    const bob = await givenAdvocate(t.db, brand.brandId, { first_name: 'Bob' });
    const first = await deactivate(brand, ann.advocateId);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ advocate_id: ann.advocateId, status: 'deactivated', deactivated_at: expect.any(String), referral_codes: [ann.code] });
    const again = await deactivate(brand, ann.advocateId);
    expect([again.status, again.body.data]).toEqual([200, first.body.data]);
    expect((await t.http.get(`/api/v1/advocates/${ann.advocateId}`).set(brand.headers)).body.data).toMatchObject({ status: 'deactivated', deactivated_at: first.body.data.deactivated_at });
    const ids = async (query: string) => (await t.http.get(`/api/v1/advocates${query}`).set(brand.headers)).body.data.map((row: { advocate_id: number }) => row.advocate_id);
    expect([await ids('?status=deactivated'), await ids('?status=active'), await ids('')]).toEqual([[ann.advocateId], [bob.advocateId], [ann.advocateId, bob.advocateId]]);
    expect((await t.http.get('/api/v1/advocates?status=gone').set(brand.headers)).body.error).toMatch(/^status/);
  });

  it('answers 404 for an unknown advocate or another brand\'s, and 400 for an id that is not one', async () => {
    const brand = await givenBrand(t.db);
    const other = await givenBrand(t.db);
    const theirs = await givenAdvocate(t.db, other.brandId);
    expect((await deactivate(brand, 999999999)).status).toBe(404);
    expect((await deactivate(brand, theirs.advocateId)).status).toBe(404);
    expect((await reactivate(brand, theirs.advocateId)).status).toBe(404);
    expect((await deactivate(brand, 'abc')).status).toBe(400);
    expect((await t.http.get(`/api/v1/advocates/${theirs.advocateId}`).set(other.headers)).body.data.status).toBe('active');
  });

  it('an order naming a deactivated advocate\'s referral_code is answered as for an unknown code', async () => {
    const { brand, ann } = await advocateWithHistory();
    await deactivate(brand, ann.advocateId);
    const named = await order(brand, { email: 'after@deactivate.example', referral_code: ann.code });
    expect([named.status, named.body]).toEqual([404, { success: false, code: 'not_found', error: `referral_code ${ann.code} not found` }]);
    expect(await t.db('conversions').where({ brand_id: brand.brandId, advocate_id: ann.advocateId })).toHaveLength(1);
  });

  it('an order with a deactivated advocate\'s code among its coupons is not a referral', async () => {
    const { brand, ann } = await advocateWithHistory();
    await deactivate(brand, ann.advocateId);
    const coupon = await order(brand, { email: 'coupon@deactivate.example', coupons_applied: [{ code: ann.code, discount_amount: 5 }] });
    expect([coupon.status, coupon.body.data]).toEqual([200, { attributed: false }]);
    expect(await t.db('conversions').where({ brand_id: brand.brandId, advocate_id: ann.advocateId })).toHaveLength(1);
  });

  it('a visit stored before deactivation credits nobody with the visitor\'s later order', async () => {
    const { brand, ann } = await advocateWithHistory();
    const visitorId = '5e0c9a52-8d0b-4f6e-9c2a-1b3d4f5a6b7c';
    expect((await t.http.post('/api/v1/track/visit').set(brand.headers).send({ referral_code: ann.code, visitor_id: visitorId })).status).toBe(200);
    await deactivate(brand, ann.advocateId);
    const visited = await order(brand, { email: 'visitor@deactivate.example', visitor_id: visitorId });
    expect([visited.status, visited.body.data]).toEqual([200, { attributed: false }]);
    expect(await t.db('conversions').where({ brand_id: brand.brandId, advocate_id: ann.advocateId })).toHaveLength(1);
  });

  it('a visit, a claim or an eligibility check with a deactivated advocate\'s code is answered as for an unknown code: 404 naming the code', async () => {
    const { brand, ann } = await advocateWithHistory();
    await deactivate(brand, ann.advocateId);
    const visit = await t.http.post('/api/v1/track/visit').set(brand.headers).send({ referral_code: ann.code });
    const claim = await t.http.post('/api/v1/track/claim').set(brand.headers).send({ referral_code: ann.code, email: 'friend@deactivate.example', raw_value: 80 });
    const eligibility = await t.http.post('/api/v1/track/check-eligibility').set(brand.headers).send({ referral_code: ann.code, customer_email: 'friend@deactivate.example' });
    const unknown = [404, `referral_code ${ann.code} not found`];
    expect([visit, claim, eligibility].map((answer) => [answer.status, answer.body.error])).toEqual([unknown, unknown, unknown]);
    expect(await t.db('visits').where({ brand_id: brand.brandId })).toHaveLength(0);
    expect(await t.db('claims').where({ brand_id: brand.brandId })).toHaveLength(0);
  });

  it('a claim made before deactivation attributes no later order, by claim_id or as the customer\'s pending claim', async () => {
    const { brand, ann } = await advocateWithHistory();
    const claim = await t.http.post('/api/v1/track/claim').set(brand.headers).send({ referral_code: ann.code, email: 'pending@deactivate.example', raw_value: 80 });
    expect(claim.status).toBe(201);
    await deactivate(brand, ann.advocateId);
    const byId = await order(brand, { email: 'pending@deactivate.example', claim_id: claim.body.data.claim_id });
    expect([byId.status, byId.body.code]).toEqual([404, 'not_found']);
    const byEmail = await order(brand, { email: 'pending@deactivate.example' });
    expect([byEmail.status, byEmail.body.data]).toEqual([200, { attributed: false }]);
  });

  it('keeps the advocate\'s history: the earlier conversion, its reward (still payable) and their figures', async () => {
    const { brand, ann, earlier } = await advocateWithHistory();
    await deactivate(brand, ann.advocateId);
    const rewards = await t.http.get(`/api/v1/rewards?advocate_id=${ann.advocateId}`).set(brand.headers);
    expect(rewards.body.data).toEqual([expect.objectContaining({ conversion_id: earlier.conversion_id, status: 'approved', amount: 20 })]);
    expect((await t.http.get(`/api/v1/advocates/${ann.advocateId}/balance`).set(brand.headers)).body.data).toMatchObject({ credited: 20, payable: 20 });
    const payouts = await t.http.get('/api/v1/payouts').set(brand.headers);
    expect(payouts.body.data.payouts).toEqual([expect.objectContaining({ advocate_id: ann.advocateId, amount: 20 })]);
    // A refund of the earlier order still reverses its reward.
    const refund = await t.http.post('/api/v1/track/refund').set(brand.headers).send({ order_id: earlier.order_id, refund_amount: 100 });
    expect(refund.status).toBe(200);
    expect((await t.http.get(`/api/v1/advocates/${ann.advocateId}/balance`).set(brand.headers)).body.data).toMatchObject({ credited: 20, reversed: 20, payable: 0 });
  });

  it('reactivating restores attribution of new orders and visits, and twice changes nothing', async () => {
    const { brand, ann } = await advocateWithHistory();
    await deactivate(brand, ann.advocateId);
    const back = await reactivate(brand, ann.advocateId);
    expect([back.status, back.body.data.status, back.body.data.deactivated_at]).toEqual([200, 'active', null]);
    expect((await reactivate(brand, ann.advocateId)).body.data).toEqual(back.body.data);
    expect((await order(brand, { email: 'again@deactivate.example', referral_code: ann.code })).body.data.advocate_id).toBe(ann.advocateId);
    expect((await t.http.post('/api/v1/track/visit').set(brand.headers).send({ referral_code: ann.code })).body.data.referrer_first_name).toBe('Ann');
  });

  it('sends no re-engagement email to a deactivated advocate', async () => {
    const brand = await givenBrand(t.db, { email_reengagement: true, reengagement_days: 1 });
    const quiet = await givenAdvocate(t.db, brand.brandId);
    const gone = await givenAdvocate(t.db, brand.brandId);
    await t.db('advocates').where({ brand_id: brand.brandId }).update({ created_at: t.db.raw(`now() - interval '2 days'`) });
    await deactivate(brand, gone.advocateId);
    await queueReengagement(t.db);
    expect(await t.db('mail_messages').where({ brand_id: brand.brandId, template: 'reengagement' }).pluck('advocate_id')).toEqual([String(quiet.advocateId)]);
  });
});

describe('referrals advocate deactivate | reactivate', () => {
  const cli = (...argv: string[]) => runCli(argv, { db: t.db, config: testConfig(), isTTY: false, progress: () => undefined });

  it('deactivates and reactivates an advocate, printing them; an unknown one exits non-zero', async () => {
    const brand = await givenBrand(t.db);
    const ann = await givenAdvocate(t.db, brand.brandId);
    const done = await cli('advocate', 'deactivate', '--brand', brand.brandId, '--advocate', String(ann.advocateId), '--json');
    expect([done.code, JSON.parse(done.stdout).advocate.status]).toEqual([0, 'deactivated']);
    const undone = await cli('advocate', 'reactivate', '--brand', brand.brandId, '--advocate', String(ann.advocateId), '--json');
    expect(JSON.parse(undone.stdout).advocate).toMatchObject({ status: 'active', deactivated_at: null });
    expect((await cli('advocate', 'deactivate', '--brand', brand.brandId, '--advocate', '999999999')).code).not.toBe(0);
  });
});

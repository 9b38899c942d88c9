import issueRewardCodesJob from '../../connectors/medusa/plugin/src/jobs/issue-reward-codes';
import { medusaRewardPromotionGateway } from '../../connectors/medusa/plugin/src/lib/medusa-reward-promotions';
import type { QueryGraph } from '../../connectors/medusa/plugin/src/lib/order-graph';
import { issueRewardPromotions } from '../../connectors/medusa/plugin/src/lib/reward-codes';
import { rewardIssueClient } from '../../connectors/medusa/plugin/src/lib/reward-issue-client';
import { myReferrals } from '../../connectors/medusa/plugin/src/lib/storefront-referrals';
import { createApiKey } from '../../core/brands/api-keys';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { useListeningService } from '../helpers/listen';
import { hexHmacSha256 } from '../helpers/signed-convert';
import { TEST_SECRET, type TestApp } from '../helpers/test-app';
import { FakeMedusaContainer, fakePromotionWorkflows } from './fake-medusa-container';
import { snapshotBody } from './order-graphs';

/**
 * The advocate's reward codes as Medusa promotions (docs/merchants/medusa.md "Reward codes"): the
 * plugin's job (jobs/issue-reward-codes.ts) in a fake Medusa container — its query.graph, and the
 * promotion workflow Medusa would run — pulling from the service in this process over HTTP
 * (GET /medusa/reward-issues) and reporting back (POST …/issued, …/failed).
 */

let service: TestApp;
let serviceUrl: string;
useListeningService((listening) => ({ service, serviceUrl } = listening));

beforeAll(() => {
  // Medusa's promotion workflows are the Medusa app's (not installed here): the fake's stand in.
  jest.doMock('@medusajs/medusa/core-flows', () => fakePromotionWorkflows, { virtual: true });
});

/** A EUR brand rewarding 20.00 per referred order at once (no hold), its Medusa store, and an advocate with an account there (and a guest checkout under the same email). */
async function givenStore() {
  const brand = await givenBrand(service.db, { plan: 'growth', reward_type: 'fixed', reward_value: 20, reward_hold_days: 0, currency: 'EUR' });
  const medusa = new FakeMedusaContainer({ serviceUrl, brandId: brand.brandId, apiKey: brand.apiKey });
  const advocate = await givenAdvocate(service.db, brand.brandId);
  const stamp = uniqueOrderId();
  medusa.customers.set(`cus_account_${stamp}`, { id: `cus_account_${stamp}`, email: advocate.email, first_name: 'Ann', last_name: null, has_account: true });
  medusa.customers.set(`cus_guest_${stamp}`, { id: `cus_guest_${stamp}`, email: advocate.email, first_name: null, last_name: null, has_account: false });
  medusa.customers.set(`cus_other_${stamp}`, { id: `cus_other_${stamp}`, email: `other-${stamp}@example.com`, first_name: 'Bo', last_name: null, has_account: true });
  const run = () => issueRewardCodesJob(medusa.container);
  const issues = () => service.db('reward_issues').where({ brand_id: brand.brandId }).orderBy('issue_id');
  return { brand, medusa, advocate, run, issues, customerIds: [`cus_account_${stamp}`, `cus_guest_${stamp}`].sort(), otherId: `cus_other_${stamp}` };
}

/** The plugin's first pull links the store (the brand becomes a coupon brand); then a friend's order referred by the advocate: 20.00 approved, issued. */
async function givenIssuedReward() {
  const store = await givenStore();
  await store.run();
  const order = await service.http.post('/api/v1/track/conversion').set(store.brand.headers).send({ email: `friend-${uniqueOrderId()}@example.com`, order_id: uniqueOrderId(), order_value: 80, referral_code: store.advocate.code });
  expect(order.status).toBe(201);
  const [issue] = await store.issues();
  expect(issue).toMatchObject({ amount: '20.00', currency: 'EUR', status: 'pending', code: expect.stringMatching(/^RWD-[0-9A-F]{10}$/) });
  return { ...store, issue: issue! };
}

const settingsOf = async (brand: { headers: Record<string, string> }) => (await service.http.get('/api/v1/brand').set(brand.headers)).body.data;

describe('the plugin’s reward codes (GET /medusa/reward-issues → Medusa promotions)', () => {
  it('links the store at the first pull, which makes the brand hand rewards out as codes; a later pull keeps a switch back to payout', async () => {
    const { brand, run } = await givenStore();
    expect(await settingsOf(brand)).toMatchObject({ reward_fulfilment: 'payout' });
    await run();
    expect(await service.db('medusa_stores').where({ brand_id: brand.brandId })).toHaveLength(1);
    expect(await settingsOf(brand)).toMatchObject({ reward_fulfilment: 'coupon' });

    expect((await service.http.patch('/api/v1/brand').set(brand.headers).send({ reward_fulfilment: 'payout' })).status).toBe(200);
    await run();
    expect(await settingsOf(brand)).toMatchObject({ reward_fulfilment: 'payout' });
  });

  it("makes an approved reward of 20.00 one promotion: 20.00 off the order in EUR, usable once, only by the advocate's customers; reported issued once", async () => {
    const { brand, medusa, advocate, run, issues, issue, customerIds } = await givenIssuedReward();
    // The brand's systems subscribe to reward.issued (a private address: the event is what is checked here).
    expect((await service.http.post('/api/v1/webhook-endpoints').set(brand.headers).send({ url: 'https://hooks.codes.example/referrals', events: ['reward.issued'] })).status).toBe(201);
    await run();

    const promotion = medusa.promotions.get(issue.code);
    expect(promotion).toEqual({
      id: expect.any(String),
      used: 0,
      code: issue.code,
      type: 'standard',
      status: 'active',
      is_automatic: false,
      limit: 1,
      application_method: { type: 'fixed', target_type: 'order', allocation: 'across', value: 20, currency_code: 'eur' },
      rules: [{ attribute: 'customer.id', operator: 'in', values: customerIds }],
      metadata: { referrals_brand_id: brand.brandId, referrals_issue_id: Number(issue.issue_id), referrals_reward_code: true },
    });
    expect(await issues()).toMatchObject([{ status: 'issued', platform_id: promotion!.id, attempts: 1, last_error: null }]);
    // The advocate hears of it (reward_issued) and the brand's systems too (reward.issued), once.
    expect(await service.db('mail_messages').where({ brand_id: brand.brandId, template: 'reward_issued' })).toHaveLength(1);
    const events = await service.db('webhook_events').where({ brand_id: brand.brandId, type: 'reward.issued' });
    expect(events.map((event) => (typeof event.payload === 'string' ? JSON.parse(event.payload) : event.payload).data)).toEqual([
      { issue_id: Number(issue.issue_id), advocate_id: advocate.advocateId, amount: 20, currency: 'EUR', method: 'code', code: issue.code, platform: 'medusa', platform_id: promotion!.id },
    ]);

    await run();
    expect(medusa.promotions.size).toBe(1);
    expect(await service.db('mail_messages').where({ brand_id: brand.brandId, template: 'reward_issued' })).toHaveLength(1);
  });

  it('makes a code anyone holding it may use when the store has no customer with the advocate’s email', async () => {
    const { medusa, run, issue, advocate } = await givenIssuedReward();
    for (const [id, customer] of medusa.customers) if (customer.email === advocate.email) medusa.customers.delete(id);
    await run();
    expect(medusa.promotions.get(issue.code)).toMatchObject({ limit: 1, rules: [] });
  });

  it("leaves one promotion when the plugin stops between Medusa's answer and its report: the lease expires and the next run finds it", async () => {
    const { brand, medusa, run, issues, issue } = await givenIssuedReward();
    const options = medusa.deliveries.options;
    const client = rewardIssueClient(options);
    // The report never reaches the service (Medusa killed, the network gone) after the promotion was made.
    const cutOff = { ...client, issued: async () => Promise.reject(new Error('connection reset')) };
    const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
    await expect(issueRewardPromotions({ service: cutOff, gateway: medusaRewardPromotionGateway(medusa.container), brandId: brand.brandId, logger })).rejects.toThrow('connection reset');
    expect(medusa.promotions.size).toBe(1);
    expect(await issues()).toMatchObject([{ status: 'pending', lease_until: expect.any(Date) }]);

    // Leased: another run meanwhile gets nothing.
    await run();
    expect(await issues()).toMatchObject([{ status: 'pending' }]);
    await service.db('reward_issues').where({ brand_id: brand.brandId }).update({ lease_until: service.db.raw("now() - interval '1 second'") });
    await run();
    expect(medusa.promotions.size).toBe(1);
    expect(await issues()).toMatchObject([{ status: 'issued', platform_id: medusa.promotions.get(issue.code)!.id }]);
  });

  it("records Medusa's refusal as the issue's failure with its reason, tries again after the backoff, and refuses a code that is a promotion the plugin did not make", async () => {
    const { brand, medusa, run, issues, issue } = await givenIssuedReward();
    medusa.refusePromotions = 'Invalid currency code: eur is not supported by the store';
    await run();
    const [failed] = await issues();
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, last_error: 'Invalid currency code: eur is not supported by the store', lease_until: null });
    expect(new Date(failed!.next_attempt_at).getTime()).toBeGreaterThan(Date.now() + 20_000);
    expect(medusa.logs).toContainEqual({ level: 'warn', message: expect.stringContaining(`reward code ${issue.code} not made a promotion`) });
    await run();
    expect(await issues()).toMatchObject([{ attempts: 1 }]);

    // The merchant made a promotion with that very code by hand meanwhile: the plugin leaves it and says so.
    medusa.refusePromotions = null;
    medusa.promotions.set(issue.code, { id: 'promo_by_hand', code: issue.code, type: 'standard', status: 'active', application_method: { type: 'fixed', target_type: 'order', value: 5 }, used: 0 });
    await service.db('reward_issues').where({ brand_id: brand.brandId }).update({ next_attempt_at: service.db.fn.now() });
    await run();
    expect(await issues()).toMatchObject([{ status: 'failed', attempts: 2, last_error: expect.stringContaining('was not made by the referral plugin') }]);

    medusa.promotions.delete(issue.code);
    await service.db('reward_issues').where({ brand_id: brand.brandId }).update({ next_attempt_at: service.db.fn.now() });
    await run();
    expect(await issues()).toMatchObject([{ status: 'issued', attempts: 3, last_error: null }]);
  });

  it("records a paid Medusa order that used the code as the advocate's claim (type advocate); /store/referrals/me shows the code ready, then used", async () => {
    const { brand, medusa, advocate, run, issues, issue, customerIds } = await givenIssuedReward();
    const me = () => myReferrals({ query: medusa.container.resolve<QueryGraph>('query'), options: medusa.deliveries.options }, customerIds[0]!);
    expect((await me()).body.reward_codes).toEqual([{ issue_id: Number(issue.issue_id), code: issue.code, amount: 20, currency: 'EUR', state: 'on_its_way', created_at: expect.any(String), issued_at: null }]);
    await run();
    expect((await me()).body.reward_codes).toMatchObject([{ code: issue.code, state: 'ready', issued_at: expect.any(String) }]);

    // The advocate's own order (70.00 − the code's 20.00), captured: the plugin's snapshot carries the promotion code.
    const body = snapshotBody({ id: `order_${uniqueOrderId()}`, email: advocate.email, promotions: [{ code: issue.code, discount: 20 }], paid: 'all' }, { event_name: 'payment.captured' });
    const delivered = await service.http
      .post('/medusa/webhooks')
      .set({ 'Content-Type': 'application/json', 'X-Brand-ID': brand.brandId, 'X-AL-Signature': hexHmacSha256(brand.apiKey, body) })
      .send(body);
    expect(delivered.status).toBe(200);
    const [spent] = await issues();
    const claim = await service.db('claims').where({ brand_id: brand.brandId, claim_id: spent!.spent_claim_id }).first();
    expect(claim).toMatchObject({ type: 'advocate', status: 'converted', email: advocate.email, referral_code: advocate.code });
    expect((await me()).body.reward_codes).toMatchObject([{ code: issue.code, state: 'used' }]);
  });
});

describe('GET /medusa/reward-issues and its reports', () => {
  it("needs the brand's secret key, names a bad field, counts a repeated report once and refuses a failure after the issue", async () => {
    const { brand, run, issue, medusa } = await givenIssuedReward();
    expect((await service.http.get('/medusa/reward-issues')).status).toBe(401);
    const publishable = await createApiKey(service.db, brand.brandId, TEST_SECRET, 'storefront', 'publishable');
    expect((await service.http.get('/medusa/reward-issues').set({ 'X-API-Key': publishable.api_key, 'X-Brand-ID': brand.brandId })).status).toBe(403);
    const tooMany = await service.http.get('/medusa/reward-issues?limit=500').set(brand.headers);
    expect([tooMany.status, tooMany.body.error]).toEqual([400, expect.stringMatching(/^limit\b/)]);
    const noPromotion = await service.http.post(`/medusa/reward-issues/${issue.issue_id}/issued`).set(brand.headers).send({});
    expect([noPromotion.status, noPromotion.body.error]).toEqual([400, expect.stringMatching(/^promotion_id\b/)]);
    expect((await service.http.post('/medusa/reward-issues/999999999/issued').set(brand.headers).send({ promotion_id: 'promo_1' })).status).toBe(404);
    // Another brand's key does not reach this brand's issue.
    const other = await givenBrand(service.db);
    expect((await service.http.post(`/medusa/reward-issues/${issue.issue_id}/issued`).set(other.headers).send({ promotion_id: 'promo_1' })).status).toBe(404);

    await run();
    const promotionId = medusa.promotions.get(issue.code)!.id;
    const again = await service.http.post(`/medusa/reward-issues/${issue.issue_id}/issued`).set(brand.headers).send({ promotion_id: 'promo_other' });
    expect([again.status, again.body.data]).toEqual([200, { issue_id: Number(issue.issue_id), status: 'issued', platform_id: promotionId, attempts: 1, duplicate: true }]);
    expect(await service.db('mail_messages').where({ brand_id: brand.brandId, template: 'reward_issued' })).toHaveLength(1);
    const late = await service.http.post(`/medusa/reward-issues/${issue.issue_id}/failed`).set(brand.headers).send({ reason: 'timeout' });
    expect(late.status).toBe(409);
    const noReason = await service.http.post(`/medusa/reward-issues/${issue.issue_id}/failed`).set(brand.headers).send({});
    expect([noReason.status, noReason.body.error]).toEqual([400, expect.stringMatching(/^reason\b/)]);
  });
});

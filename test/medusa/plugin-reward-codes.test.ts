import issueRewardCodesJob from '../../connectors/medusa/plugin/src/jobs/issue-reward-codes';
import { medusaRewardPromotionGateway } from '../../connectors/medusa/plugin/src/lib/medusa-reward-promotions';
import { medusaStoreCreditGateway } from '../../connectors/medusa/plugin/src/lib/medusa-store-credit';
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
import { FakeStoreCreditModule, fakeStoreCreditWorkflows } from './fake-store-credit';
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
  // So are the loyalty plugin's store credit workflows (a store that runs its Store Credit Module).
  jest.doMock('@medusajs/loyalty-plugin/workflows', () => fakeStoreCreditWorkflows, { virtual: true });
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
  const orderId = uniqueOrderId();
  const order = await service.http.post('/api/v1/track/conversion').set(store.brand.headers).send({ email: `friend-${uniqueOrderId()}@example.com`, order_id: orderId, order_value: 80, referral_code: store.advocate.code });
  expect(order.status).toBe(201);
  const [issue] = await store.issues();
  expect(issue).toMatchObject({ amount: '20.00', currency: 'EUR', status: 'pending', code: expect.stringMatching(/^RWD-[0-9A-F]{10}$/) });
  return { ...store, issue: issue!, orderId };
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

/** A refund of `amount` of the referred order (80.00, its reward 20.00): the reward is reversed pro rata. */
async function refund(brand: { headers: Record<string, string> }, orderId: string, amount: number) {
  const refunded = await service.http.post('/api/v1/track/refund').set(brand.headers).send({ order_id: orderId, refund_amount: amount, is_full_refund: amount >= 80, refund_id: uniqueOrderId() });
  expect(refunded.status).toBe(200);
}

const balanceOf = async (brand: { headers: Record<string, string> }, advocateId: number) => (await service.http.get(`/api/v1/advocates/${advocateId}/balance`).set(brand.headers)).body.data;

/** The advocate's `issued` ledger entries: each code's money out (−) and back (+). */
const issuedEntries = (brandId: string, advocateId: number) =>
  service.db('reward_ledger').where({ brand_id: brandId, advocate_id: advocateId, kind: 'issued' }).orderBy('entry_id').select('issue_id', 'amount', 'reason');

const quietLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The referred order's 20.00 code made a promotion in the store and reported issued. */
async function givenLiveCode() {
  const given = await givenIssuedReward();
  await given.run();
  const promotion = given.medusa.promotions.get(given.issue.code)!;
  expect(await given.issues()).toMatchObject([{ status: 'issued', platform_id: promotion.id }]);
  return { ...given, promotion };
}

describe('taking a reward code back from the Medusa store (a refund, its expiry)', () => {
  it('a 20.00 code unused, the referred order refunded half: its promotion is deleted, a 10.00 code made in its place; the ledger returns the 20.00 once; a repeated report changes nothing', async () => {
    const { brand, medusa, advocate, run, issues, issue, orderId, promotion } = await givenLiveCode();
    await refund(brand, orderId, 40);
    // Still live in the store: marked to be taken back, nothing returned yet.
    expect(await issues()).toMatchObject([{ status: 'revoking', revoke_reason: 'refund' }]);

    await run();
    expect(medusa.deletedPromotionIds).toEqual([promotion.id]);
    expect(medusa.promotions.has(issue.code)).toBe(false);
    const [revoked, replacement] = await issues();
    expect(replacement).toMatchObject({ amount: '10.00', status: 'pending' });
    expect(revoked).toMatchObject({ status: 'revoked', revoke_reason: 'refund', replaced_by: replacement!.issue_id, revoked_at: expect.any(Date), lease_until: null });
    expect(await issuedEntries(brand.brandId, advocate.advocateId)).toEqual([
      { issue_id: issue.issue_id, amount: '-20.00', reason: 'issued as a single-use code' },
      { issue_id: issue.issue_id, amount: '20.00', reason: 'reward code withdrawn after a refund' },
      { issue_id: replacement!.issue_id, amount: '-10.00', reason: 'issued as a single-use code' },
    ]);

    // The next run makes the 10.00 code a promotion for the advocate's customers.
    await run();
    expect(medusa.promotions.get(replacement!.code)).toMatchObject({ limit: 1, application_method: { value: 10, currency_code: 'eur' } });
    expect(await issues()).toMatchObject([{ status: 'revoked' }, { status: 'issued' }]);
    expect(await balanceOf(brand, advocate.advocateId)).toMatchObject({ credited: 20, reversed: 10, issued: 10, balance: 0, owed: 0, payable: 0 });

    // A plugin that did not hear our answer reports again: nothing changes.
    const again = await service.http.post(`/medusa/reward-issues/${issue.issue_id}/revoked`).set(brand.headers);
    expect([again.status, again.body.data]).toEqual([200, { issue_id: Number(issue.issue_id), status: 'revoked', replaced_by: Number(replacement!.issue_id), duplicate: true }]);
    expect(await issuedEntries(brand.brandId, advocate.advocateId)).toHaveLength(3);
  });

  it('a code Medusa counted used before the refund: the promotion stays, the code is recorded used and the advocate owes what the refund reversed', async () => {
    const { brand, medusa, advocate, run, issues, issue, orderId } = await givenLiveCode();
    // The advocate's cart with the code became an order: Medusa counted the use.
    medusa.promotions.get(issue.code)!.used = 1;
    await refund(brand, orderId, 80);
    await run();
    expect(medusa.deletedPromotionIds).toEqual([]);
    expect(medusa.promotions.has(issue.code)).toBe(true);
    expect(await issues()).toMatchObject([{ status: 'used', lease_until: null }]);
    expect(await balanceOf(brand, advocate.advocateId)).toMatchObject({ credited: 20, reversed: 20, issued: 20, owed: 20, payable: 0 });
    expect(await issuedEntries(brand.brandId, advocate.advocateId)).toHaveLength(1);
    await run();
    expect(await issues()).toMatchObject([{ status: 'used' }]);
  });

  it('settles a code once when the plugin stops between deleting the promotion and its report: the next run finds nothing and reports it', async () => {
    const { brand, medusa, advocate, run, issues, issue, orderId, promotion } = await givenLiveCode();
    await refund(brand, orderId, 80);
    const client = rewardIssueClient(medusa.deliveries.options);
    const cutOff = { ...client, revoked: async () => Promise.reject(new Error('connection reset')) };
    await expect(issueRewardPromotions({ service: cutOff, gateway: medusaRewardPromotionGateway(medusa.container), brandId: brand.brandId, logger: quietLogger })).rejects.toThrow('connection reset');
    expect(medusa.promotions.has(issue.code)).toBe(false);
    expect(await issues()).toMatchObject([{ status: 'revoking', lease_until: expect.any(Date) }]);

    // Leased: another run meanwhile gets nothing; once the lease is over, the lookup finds no promotion.
    await run();
    expect(await issues()).toMatchObject([{ status: 'revoking' }]);
    await service.db('reward_issues').where({ brand_id: brand.brandId }).update({ lease_until: service.db.raw("now() - interval '1 second'") });
    await run();
    expect(medusa.deletedPromotionIds).toEqual([promotion.id]);
    expect(await issues()).toMatchObject([{ status: 'revoked', replaced_by: null }]);
    expect(await issuedEntries(brand.brandId, advocate.advocateId)).toEqual([
      { issue_id: issue.issue_id, amount: '-20.00', reason: 'issued as a single-use code' },
      { issue_id: issue.issue_id, amount: '20.00', reason: 'reward code withdrawn after a refund' },
    ]);
    expect(await balanceOf(brand, advocate.advocateId)).toMatchObject({ credited: 20, reversed: 20, issued: 0, balance: 0, owed: 0 });
  });

  it('counts a delete that finds the promotion gone (another Medusa process deleted it first) as done', async () => {
    const { brand, medusa, issues, issue, orderId } = await givenLiveCode();
    await refund(brand, orderId, 80);
    const gateway = medusaRewardPromotionGateway(medusa.container);
    const deletedElsewhere = {
      ...gateway,
      delete: async (promotionId: string) => {
        await gateway.delete(promotionId);
        throw new Error(`Promotion with id: ${promotionId} was not found`);
      },
    };
    const summary = await issueRewardPromotions({ service: rewardIssueClient(medusa.deliveries.options), gateway: deletedElsewhere, brandId: brand.brandId, logger: quietLogger });
    expect(summary).toMatchObject({ pulled: 1, revoked: 1, failed: 0 });
    expect(medusa.promotions.has(issue.code)).toBe(false);
    expect(await issues()).toMatchObject([{ status: 'revoked', last_error: null }]);
  });

  it('takes an expired code back at the next pull and makes a new one for its 20.00', async () => {
    const { brand, medusa, advocate, run, issues, issue, promotion } = await givenLiveCode();
    await service.db('reward_issues').where({ brand_id: brand.brandId, issue_id: issue.issue_id }).update({ expires_at: service.db.raw("now() - interval '1 minute'") });
    await run();
    expect(medusa.deletedPromotionIds).toEqual([promotion.id]);
    const [expired, replacement] = await issues();
    expect(expired).toMatchObject({ status: 'revoked', revoke_reason: 'expired', replaced_by: replacement!.issue_id });
    expect(replacement).toMatchObject({ amount: '20.00', status: 'pending' });
    expect(await issuedEntries(brand.brandId, advocate.advocateId)).toContainEqual({ issue_id: issue.issue_id, amount: '20.00', reason: 'reward code expired' });
    await run();
    expect(medusa.promotions.get(replacement!.code)).toMatchObject({ application_method: { value: 20 } });
  });

  it('settles a code refunded before any plugin held it without the plugin, and makes what is left in the same run', async () => {
    const { brand, medusa, advocate, run, issues, issue, orderId } = await givenIssuedReward();
    await refund(brand, orderId, 40);
    expect(await issues()).toMatchObject([{ status: 'revoking', platform_id: null, lease_until: null }]);
    await run();
    expect(medusa.deletedPromotionIds).toEqual([]);
    expect(medusa.promotions.has(issue.code)).toBe(false);
    const [revoked, replacement] = await issues();
    expect(revoked).toMatchObject({ status: 'revoked', replaced_by: replacement!.issue_id });
    expect(replacement).toMatchObject({ amount: '10.00', status: 'issued', platform_id: medusa.promotions.get(replacement!.code)!.id });
    expect(await balanceOf(brand, advocate.advocateId)).toMatchObject({ issued: 10, balance: 0, owed: 0 });
  });

  it("a code refunded while its promotion was being made: the issued report answers 'revoking', nobody hears of it, and the next run deletes it", async () => {
    const { brand, medusa, run, issues, issue, orderId } = await givenIssuedReward();
    const gateway = medusaRewardPromotionGateway(medusa.container);
    const refundedMeanwhile = {
      ...gateway,
      create: async (spec: Parameters<typeof gateway.create>[0]) => {
        const id = await gateway.create(spec);
        await refund(brand, orderId, 80);
        return id;
      },
    };
    const client = rewardIssueClient(medusa.deliveries.options);
    const answers: Array<{ status: string }> = [];
    const listening = { ...client, issued: async (issueId: number, promotionId: string) => answers[answers.push(await client.issued(issueId, promotionId)) - 1]! };
    await issueRewardPromotions({ service: listening, gateway: refundedMeanwhile, brandId: brand.brandId, logger: quietLogger });
    const promotion = medusa.promotions.get(issue.code)!;
    expect(answers).toEqual([{ status: 'revoking' }]);
    expect(await issues()).toMatchObject([{ status: 'revoking', platform_id: promotion.id, issued_at: null, lease_until: null }]);
    expect(await service.db('mail_messages').where({ brand_id: brand.brandId, template: 'reward_issued' })).toHaveLength(0);
    expect(await service.db('webhook_events').where({ brand_id: brand.brandId, type: 'reward.issued' })).toHaveLength(0);

    await run();
    expect(medusa.deletedPromotionIds).toEqual([promotion.id]);
    expect(await issues()).toMatchObject([{ status: 'revoked', replaced_by: null }]);
  });

  it("deletes a promotion made after its code was settled (a run slower than its lease): the issued report answers 'revoked'", async () => {
    const { brand, medusa, issues, issue, orderId } = await givenIssuedReward();
    const gateway = medusaRewardPromotionGateway(medusa.container);
    const client = rewardIssueClient(medusa.deliveries.options);
    const slow = {
      ...gateway,
      create: async (spec: Parameters<typeof gateway.create>[0]) => {
        // Before Medusa answers: the lease runs out, a refund takes the code back, another process's run finds no promotion and reports it revoked.
        await service.db('reward_issues').where({ brand_id: brand.brandId }).update({ lease_until: service.db.raw("now() - interval '1 second'") });
        await refund(brand, orderId, 80);
        expect(await issueRewardPromotions({ service: client, gateway, brandId: brand.brandId, logger: quietLogger })).toMatchObject({ revoked: 1 });
        return gateway.create(spec);
      },
    };
    await issueRewardPromotions({ service: client, gateway: slow, brandId: brand.brandId, logger: quietLogger });
    expect(medusa.promotions.has(issue.code)).toBe(false);
    expect(medusa.deletedPromotionIds).toHaveLength(1);
    expect(await issues()).toMatchObject([{ status: 'revoked', issued_at: null }]);
    expect(await service.db('mail_messages').where({ brand_id: brand.brandId, template: 'reward_issued' })).toHaveLength(0);
  });

  it("keeps a code being taken back when Medusa refuses the delete: the reason recorded, tried again after the backoff, never settled without the plugin's lookup", async () => {
    const { brand, medusa, run, issues, issue, orderId, promotion } = await givenLiveCode();
    await refund(brand, orderId, 80);
    medusa.refuseDeletes = 'Medusa is restarting';
    await run();
    const [kept] = await issues();
    expect(kept).toMatchObject({ status: 'revoking', attempts: 2, last_error: 'Medusa is restarting', lease_until: expect.any(Date) });
    expect(new Date(kept!.next_attempt_at).getTime()).toBeGreaterThan(Date.now() + 20_000);
    expect(medusa.logs).toContainEqual({ level: 'warn', message: expect.stringContaining(`reward code ${issue.code} not taken back`) });
    await run();
    expect(medusa.promotions.has(issue.code)).toBe(true);
    expect(await issues()).toMatchObject([{ status: 'revoking', attempts: 2 }]);

    medusa.refuseDeletes = null;
    await service.db('reward_issues').where({ brand_id: brand.brandId }).update({ next_attempt_at: service.db.fn.now() });
    await run();
    expect(medusa.deletedPromotionIds).toEqual([promotion.id]);
    expect(await issues()).toMatchObject([{ status: 'revoked' }]);
  });
});

describe('taking back over GET /medusa/reward-issues and its reports', () => {
  it('hands codes to take back only to a plugin that asks (actions=take_back), names a bad action, and refuses a revoked or used report of a code not being taken back', async () => {
    const { brand, issue, orderId, promotion } = await givenLiveCode();
    const report = (what: 'revoked' | 'used') => service.http.post(`/medusa/reward-issues/${issue.issue_id}/${what}`).set(brand.headers);
    const early = await report('revoked');
    expect([early.status, early.body.error]).toEqual([409, expect.stringContaining('is issued, not being taken back')]);
    expect((await report('used')).status).toBe(409);

    await refund(brand, orderId, 80);
    // An older plugin (no actions) would make the code again: it gets nothing.
    const older = await service.http.get('/medusa/reward-issues').set(brand.headers);
    expect([older.status, older.body.data]).toEqual([200, []]);
    const bad = await service.http.get('/medusa/reward-issues?actions=make,delete').set(brand.headers);
    expect([bad.status, bad.body.error]).toEqual([400, expect.stringMatching(/^actions\b/)]);
    const pulled = await service.http.get('/medusa/reward-issues?actions=make,take_back').set(brand.headers);
    expect(pulled.body.data).toEqual([
      { issue_id: Number(issue.issue_id), action: 'take_back', method: 'code', platform_id: promotion.id, code: issue.code, amount: 20, currency: 'EUR', advocate_email: expect.any(String), attempts: 1 },
    ]);

    const used = await report('used');
    expect([used.status, used.body.data]).toEqual([200, { issue_id: Number(issue.issue_id), status: 'used', replaced_by: null, duplicate: false }]);
    expect((await report('used')).body.data).toMatchObject({ status: 'used', duplicate: true });
    expect((await report('revoked')).body.data).toMatchObject({ status: 'used', duplicate: true });
    expect((await service.http.post('/medusa/reward-issues/999999999/revoked').set(brand.headers)).status).toBe(404);
  });
});

/**
 * A store_credit brand (the merchant switched from the coupon a first pull set) whose store runs the
 * Store Credit Module, and a friend's order referred by its advocate: 20.00 approved, to credit.
 */
async function givenCreditReward() {
  const store = await givenStore();
  await store.run();
  expect((await service.http.patch('/api/v1/brand').set(store.brand.headers).send({ reward_fulfilment: 'store_credit' })).status).toBe(200);
  const storeCredit = new FakeStoreCreditModule();
  store.medusa.storeCredit = storeCredit;
  const orderId = uniqueOrderId();
  const order = await service.http.post('/api/v1/track/conversion').set(store.brand.headers).send({ email: `friend-${uniqueOrderId()}@example.com`, order_id: orderId, order_value: 80, referral_code: store.advocate.code });
  expect(order.status).toBe(201);
  const [issue] = await store.issues();
  expect(issue).toMatchObject({ amount: '20.00', currency: 'EUR', status: 'pending', method: 'store_credit' });
  const accountCustomer = store.customerIds.find((id) => id.startsWith('cus_account_'))!;
  const mails = () => service.db('mail_messages').where({ brand_id: store.brand.brandId, template: 'reward_issued' });
  return { ...store, storeCredit, issue: issue!, orderId, accountCustomer, mails };
}

const dataOf = (row: { data?: unknown; payload?: unknown }) => {
  const value = row.data ?? row.payload;
  return typeof value === 'string' ? JSON.parse(value) : value;
};

describe('store credit in the Medusa store (a store_credit brand, the Store Credit Module)', () => {
  it("credits 20.00 in EUR to the store credit account of the advocate's registered customer (not their guest checkout), once; recorded issued as store credit", async () => {
    const { brand, medusa, storeCredit, advocate, run, issues, issue, accountCustomer, mails } = await givenCreditReward();
    expect((await service.http.post('/api/v1/webhook-endpoints').set(brand.headers).send({ url: 'https://hooks.credit.example/referrals', events: ['reward.issued'] })).status).toBe(201);
    await run();

    expect(storeCredit.accounts).toEqual([{ id: 'sc_acc_1', customer_id: accountCustomer, currency_code: 'eur', code: expect.any(String) }]);
    expect(storeCredit.transactions).toEqual([
      { id: 'sc_trx_1', account_id: 'sc_acc_1', type: 'credit', amount: 20, reference: 'referral_reward', reference_id: issue.code, note: `Referral reward ${issue.code}` },
    ]);
    expect(medusa.promotions.size).toBe(0);
    expect(await issues()).toMatchObject([{ status: 'issued', method: 'store_credit', no_customer_account: false, platform_id: 'sc_trx_1', attempts: 1, last_error: null }]);
    const sent = await mails();
    expect(sent).toHaveLength(1);
    expect(dataOf(sent[0]!)).toMatchObject({ reward_method: 'store_credit' });
    const events = await service.db('webhook_events').where({ brand_id: brand.brandId, type: 'reward.issued' });
    expect(events.map((event) => dataOf(event).data)).toEqual([
      { issue_id: Number(issue.issue_id), advocate_id: advocate.advocateId, amount: 20, currency: 'EUR', method: 'store_credit', code: null, platform: 'medusa', platform_id: 'sc_trx_1' },
    ]);

    // The next reward (20.00 per referred order) goes to the same account.
    await service.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: `friend-${uniqueOrderId()}@example.com`, order_id: uniqueOrderId(), order_value: 40, referral_code: advocate.code });
    await run();
    await run();
    expect(storeCredit.accounts).toHaveLength(1);
    expect(storeCredit.transactions.map((transaction) => [transaction.account_id, transaction.amount])).toEqual([
      ['sc_acc_1', 20],
      ['sc_acc_1', 20],
    ]);
    expect(storeCredit.balanceOf('sc_acc_1')).toBe(40);
    expect(await mails()).toHaveLength(2);
  });

  it("leaves one credit when the plugin stops between Medusa's credit and its report: the next run finds the credit by its reference and reports it", async () => {
    const { brand, medusa, storeCredit, run, issues } = await givenCreditReward();
    const cutOff = { ...rewardIssueClient(medusa.deliveries.options), credited: async () => Promise.reject(new Error('connection reset')) };
    const gateways = { gateway: medusaRewardPromotionGateway(medusa.container), storeCredit: medusaStoreCreditGateway(medusa.container) };
    await expect(issueRewardPromotions({ service: cutOff, ...gateways, brandId: brand.brandId, logger: quietLogger })).rejects.toThrow('connection reset');
    expect(storeCredit.transactions).toHaveLength(1);
    expect(await issues()).toMatchObject([{ status: 'pending', lease_until: expect.any(Date) }]);

    await service.db('reward_issues').where({ brand_id: brand.brandId }).update({ lease_until: service.db.raw("now() - interval '1 second'") });
    await run();
    expect(storeCredit.transactions).toHaveLength(1);
    expect(storeCredit.balanceOf('sc_acc_1')).toBe(20);
    expect(await issues()).toMatchObject([{ status: 'issued', method: 'store_credit', platform_id: 'sc_trx_1' }]);
  });

  it("makes the code when the store runs no Store Credit Module: recorded as a code, and the merchant's log says why", async () => {
    const { medusa, run, issues, issue, customerIds, mails } = await givenCreditReward();
    medusa.storeCredit = null;
    await run();
    const promotion = medusa.promotions.get(issue.code)!;
    expect(promotion).toMatchObject({ limit: 1, application_method: { value: 20, currency_code: 'eur' }, rules: [{ attribute: 'customer.id', operator: 'in', values: customerIds }] });
    expect(promotion.metadata).not.toHaveProperty('referrals_no_customer_account');
    expect(await issues()).toMatchObject([{ status: 'issued', method: 'code', no_customer_account: false, platform_id: promotion.id }]);
    expect(dataOf((await mails())[0]!)).not.toHaveProperty('no_customer_account');
    expect(medusa.logs).toContainEqual({ level: 'warn', message: expect.stringContaining(`runs no Store Credit Module (@medusajs/loyalty-plugin): reward ${issue.code} is made a code instead`) });
  });

  it('makes the code, and says so, when the advocate has no customer account (a guest checkout only); a later account does not credit it again', async () => {
    const { brand, medusa, storeCredit, run, issues, issue, accountCustomer, mails } = await givenCreditReward();
    const registered = medusa.customers.get(accountCustomer)!;
    medusa.customers.delete(accountCustomer);
    // The run stops after making the code, before its report.
    const cutOff = { ...rewardIssueClient(medusa.deliveries.options), issued: async () => Promise.reject(new Error('connection reset')) };
    const gateways = { gateway: medusaRewardPromotionGateway(medusa.container), storeCredit: medusaStoreCreditGateway(medusa.container) };
    await expect(issueRewardPromotions({ service: cutOff, ...gateways, brandId: brand.brandId, logger: quietLogger })).rejects.toThrow('connection reset');
    const promotion = medusa.promotions.get(issue.code)!;
    expect(promotion.metadata).toMatchObject({ referrals_no_customer_account: true });

    // The advocate signs up meanwhile: the code made is what they get, never a credit as well.
    medusa.customers.set(accountCustomer, registered);
    await service.db('reward_issues').where({ brand_id: brand.brandId }).update({ lease_until: service.db.raw("now() - interval '1 second'") });
    await run();
    expect(storeCredit.accounts).toEqual([]);
    expect(storeCredit.transactions).toEqual([]);
    expect(medusa.promotions.size).toBe(1);
    expect(await issues()).toMatchObject([{ status: 'issued', method: 'code', no_customer_account: true, platform_id: promotion.id }]);
    const sent = await mails();
    expect(sent).toHaveLength(1);
    expect(dataOf(sent[0]!)).toMatchObject({ reward_code: issue.code, no_customer_account: true });
  });

  it("records Medusa's refusal of the credit as the issue's failure and credits it after the backoff", async () => {
    const { brand, storeCredit, run, issues } = await givenCreditReward();
    storeCredit.refuseCredits = 'Amount must be greater than 0';
    await run();
    expect(await issues()).toMatchObject([{ status: 'failed', method: 'store_credit', attempts: 1, last_error: 'Amount must be greater than 0' }]);
    storeCredit.refuseCredits = null;
    await service.db('reward_issues').where({ brand_id: brand.brandId }).update({ next_attempt_at: service.db.fn.now() });
    await run();
    expect(storeCredit.transactions).toHaveLength(1);
    expect(await issues()).toMatchObject([{ status: 'issued', method: 'store_credit', attempts: 2, last_error: null }]);
  });
});

describe('store credit over GET /medusa/reward-issues and its issued report', () => {
  it('hands store credit issues only to a plugin that says it can (actions=…,store_credit), with their method; names a missing transaction_id; refuses a code reported credited', async () => {
    const { brand, issue } = await givenCreditReward();
    // An older plugin would make it a code without saying why: it gets nothing.
    const older = await service.http.get('/medusa/reward-issues?actions=make,take_back').set(brand.headers);
    expect([older.status, older.body.data]).toEqual([200, []]);
    const pulled = await service.http.get('/medusa/reward-issues?actions=make,take_back,store_credit').set(brand.headers);
    expect(pulled.body.data).toEqual([
      { issue_id: Number(issue.issue_id), action: 'make', method: 'store_credit', platform_id: null, code: issue.code, amount: 20, currency: 'EUR', advocate_email: expect.any(String), attempts: 0 },
    ]);

    const noTransaction = await service.http.post(`/medusa/reward-issues/${issue.issue_id}/issued`).set(brand.headers).send({ method: 'store_credit' });
    expect([noTransaction.status, noTransaction.body.error]).toEqual([400, expect.stringMatching(/^transaction_id\b/)]);
    const credited = await service.http.post(`/medusa/reward-issues/${issue.issue_id}/issued`).set(brand.headers).send({ method: 'store_credit', transaction_id: 'sc_trx_9' });
    expect([credited.status, credited.body.data]).toEqual([200, { issue_id: Number(issue.issue_id), status: 'issued', platform_id: 'sc_trx_9', attempts: 1, duplicate: false }]);

    // A coupon brand's code is never credited.
    const coupon = await givenIssuedReward();
    const wrong = await service.http.post(`/medusa/reward-issues/${coupon.issue.issue_id}/issued`).set(coupon.brand.headers).send({ method: 'store_credit', transaction_id: 'sc_trx_1' });
    expect([wrong.status, wrong.body.error]).toEqual([409, expect.stringContaining('is a code: it is not credited')]);
  });
});

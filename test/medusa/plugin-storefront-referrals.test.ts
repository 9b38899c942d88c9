import http from 'node:http';
import { useListeningService } from '../helpers/listen';
import type { AuthenticatedMedusaRequest } from '@medusajs/framework/http';
import * as joinRoute from '../../connectors/medusa/plugin/src/api/store/referrals/join/route';
import * as meRoute from '../../connectors/medusa/plugin/src/api/store/referrals/me/route';
import type { QueryGraph } from '../../connectors/medusa/plugin/src/lib/order-graph';
import { parsePluginOptions } from '../../connectors/medusa/plugin/src/lib/plugin-options';
import { type StorefrontDeps, joinReferralProgram, myReferrals } from '../../connectors/medusa/plugin/src/lib/storefront-referrals';
import { givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { freePort } from '../helpers/free-port';
import type { TestApp } from '../helpers/test-app';
import { FakeMedusaContainer, recordingResponse } from './fake-medusa-container';

/**
 * The plugin's store routes for the logged-in customer (POST /store/referrals/join, GET
 * /store/referrals/me) as plain functions, against the service in this process: who the customer is
 * comes from Medusa's Customer module (the fake container), never from the request.
 */

let service: TestApp;
let serviceUrl: string;
useListeningService((listening) => ({ service, serviceUrl } = listening));

let customers = 0;

/** A brand (no hold, 10 % of the order) and a Medusa store whose plugin reports to it, with one registered customer. */
async function givenStore(options: Record<string, unknown> = {}, customer: { first_name?: string | null; last_name?: string | null } = {}) {
  const brand = await givenBrand(service.db, { plan: 'growth', reward_type: 'percentage', reward_value: 10, reward_hold_days: 0, store_url: 'https://shop.example.com' });
  const medusa = new FakeMedusaContainer({ serviceUrl, brandId: brand.brandId, apiKey: brand.apiKey, ...options });
  customers += 1;
  const id = `cus_${customers}_${Date.now()}`;
  const email = `Customer${customers}-${Date.now()}@Example.com`;
  medusa.customers.set(id, { id, email, first_name: 'first_name' in customer ? customer.first_name! : 'Mia', last_name: customer.last_name ?? null, has_account: true });
  const deps: StorefrontDeps = { query: medusa.container.resolve<QueryGraph>('query'), options: medusa.deliveries.options };
  const advocates = () => service.db('advocates').where({ brand_id: brand.brandId });
  return { brand, medusa, deps, customerId: id, email, advocates };
}

/** A friend's paid order with the code, straight to the service (the order path has its own tests). */
async function friendOrders(brand: { headers: Record<string, string> }, code: string, value: number): Promise<string> {
  const orderId = uniqueOrderId();
  const response = await service.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: `friend-${uniqueOrderId()}@example.com`, order_id: orderId, order_value: value, referral_code: code });
  expect(response.status).toBe(201);
  return orderId;
}

describe('POST /store/referrals/join (joinReferralProgram)', () => {
  it("joins the customer with their own Medusa email and name — never the body's — and answers the same code when they join again", async () => {
    const store = await givenStore({}, { last_name: 'Stone' });
    const first = await joinReferralProgram(store.deps, store.customerId, { consent: true, email: 'someone-else@example.com', first_name: 'Mallory' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ joined: true, referral_code: expect.stringMatching(/^MIA/), share_link: `https://shop.example.com/?ref=${first.body.referral_code}` });

    const [advocate] = await store.advocates();
    expect(advocate).toMatchObject({ email: store.email, first_name: 'Mia', last_name: 'Stone' });
    expect(advocate.consent_at).not.toBeNull();
    expect(await service.db('advocates').where({ email_normalized: 'someone-else@example.com' })).toEqual([]);

    const again = await joinReferralProgram(store.deps, store.customerId, { consent: true });
    expect(again).toEqual({ status: 200, body: { joined: false, referral_code: first.body.referral_code, share_link: first.body.share_link } });
    expect(await store.advocates()).toHaveLength(1);
  });

  it('refuses without consent (400), asking nothing of the service', async () => {
    const store = await givenStore();
    for (const body of [undefined, {}, { consent: false }, { consent: 'true' }]) {
      const answer = await joinReferralProgram(store.deps, store.customerId, body);
      expect(answer).toEqual({ status: 400, body: { type: 'invalid_data', message: expect.stringMatching(/^consent must be true/) } });
    }
    expect(await store.advocates()).toEqual([]);
  });

  it('names a customer without a first name after their email, and builds the link from the storefrontUrl option when set', async () => {
    const store = await givenStore({ storefrontUrl: 'https://www.example.com/r/{code}' }, { first_name: null });
    const answer = await joinReferralProgram(store.deps, store.customerId, { consent: true });
    expect(answer.status).toBe(201);
    expect(answer.body.share_link).toBe(`https://www.example.com/r/${answer.body.referral_code}`);
    expect((await store.advocates())[0].first_name).toBe(store.email.split('@')[0]);
  });

  it('answers 409 for a deactivated advocate, 502 when the service is down or refuses the key — never the details of the key', async () => {
    const store = await givenStore();
    const joined = await joinReferralProgram(store.deps, store.customerId, { consent: true });
    await service.db('advocates').where({ brand_id: store.brand.brandId }).update({ status: 'deactivated' });
    expect(await joinReferralProgram(store.deps, store.customerId, { consent: true })).toEqual({ status: 409, body: { type: 'not_allowed', message: expect.stringMatching(/cannot join/) } });
    expect(joined.status).toBe(201);

    const down = { ...store.deps, options: { ...store.deps.options, serviceUrl: `http://127.0.0.1:${await freePort()}` } };
    expect(await joinReferralProgram(down, store.customerId, { consent: true })).toMatchObject({ status: 502, body: { type: 'unexpected_state' } });
    const badKey = { ...store.deps, options: { ...store.deps.options, apiKey: 'sk_wrong' } };
    const refused = await joinReferralProgram(badKey, store.customerId, { consent: true });
    expect(refused).toMatchObject({ status: 502, body: { message: expect.stringMatching(/apiKey/) } });
    expect(JSON.stringify(refused)).not.toContain('sk_wrong');
  });
});

describe('GET /store/referrals/me (myReferrals)', () => {
  it('answers 404 with a clear message before the customer joined, then their code, link, friends referred and rewards by status', async () => {
    const store = await givenStore();
    expect(await myReferrals(store.deps, store.customerId)).toEqual({
      status: 404,
      body: { type: 'not_found', message: 'you have not joined the referral program yet: join it with POST /store/referrals/join' },
    });

    const joined = await joinReferralProgram(store.deps, store.customerId, { consent: true });
    const code = joined.body.referral_code as string;
    expect(await myReferrals(store.deps, store.customerId)).toEqual({
      status: 200,
      body: { referral_code: code, share_link: joined.body.share_link, status: 'active', friends_referred: 0, rewards: { currency: 'USD', held: 0, approved: 0, paid: 0, owed: 0 }, reward_codes: [] },
    });

    const refunded = await friendOrders(store.brand, code, 120);
    await friendOrders(store.brand, code, 80);
    const me = await myReferrals(store.deps, store.customerId);
    expect(me.body).toMatchObject({ friends_referred: 2, rewards: { currency: 'USD', held: 0, approved: 20, paid: 0, owed: 0 } });

    // Issue 40: paid out, then a refund took 12.00 back: owed 4.00, never approved -4.00.
    const { payouts } = (await service.http.get('/api/v1/payouts').set(store.brand.headers)).body.data;
    expect((await service.http.post('/api/v1/payouts/mark-paid').set(store.brand.headers).send({ payouts: payouts.map(({ payout_id, advocate_id, amount }: Record<string, unknown>) => ({ payout_id, advocate_id, amount })) })).status).toBe(200);
    expect((await service.http.post('/api/v1/track/refund').set(store.brand.headers).send({ order_id: refunded, refund_amount: 120, is_full_refund: true })).status).toBe(200);
    expect((await myReferrals(store.deps, store.customerId)).body).toMatchObject({ friends_referred: 1, rewards: { currency: 'USD', held: 0, approved: 0, paid: 20, owed: 12 } });
  });

  it("shows a customer only their own figures: another customer of the store who has not joined gets a 404, not the advocate's", async () => {
    const store = await givenStore();
    await joinReferralProgram(store.deps, store.customerId, { consent: true });
    store.medusa.customers.set('cus_other', { id: 'cus_other', email: `other-${Date.now()}@example.com`, first_name: 'Otto', last_name: null, has_account: true });
    expect((await myReferrals(store.deps, 'cus_other')).status).toBe(404);
    expect((await myReferrals(store.deps, 'cus_unknown')).status).toBe(404);
  });
});

describe('the store route modules', () => {
  /** What Medusa hands a route once its middlewares.ts authenticated the customer. */
  function call(store: Awaited<ReturnType<typeof givenStore>>, body?: unknown) {
    const req = { scope: store.medusa.container, auth_context: { actor_id: store.customerId, actor_type: 'customer', auth_identity_id: 'authid_1', app_metadata: {} }, body } as unknown as AuthenticatedMedusaRequest;
    const { res, sent } = recordingResponse();
    return { req, res, sent };
  }

  it('read the customer from auth_context and the options from the referrals module', async () => {
    const store = await givenStore();
    const join = call(store, { consent: true });
    await joinRoute.POST(join.req, join.res);
    expect(join.sent).toMatchObject({ status: 201, body: { joined: true, referral_code: expect.any(String) } });

    const me = call(store);
    await meRoute.GET(me.req, me.res);
    expect(me.sent).toMatchObject({ status: 200, body: { referral_code: (join.sent.body as { referral_code: string }).referral_code, friends_referred: 0 } });
    // The join started a promotion sync; the fake container has no promotions, so it only logs why.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(store.medusa.logs.filter((log) => log.level === 'error')).toEqual([]);
  });
});

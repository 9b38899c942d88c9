import type { Knex } from 'knex';
import { adminApiForBrand } from '../../connectors/shopify/admin-api';
import { issueRewardCodes } from '../../connectors/shopify/reward-code-worker';
import { csrfTokenOf, settingsFormOf, signedInAgent } from '../dashboard/dashboard-helpers';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { TEST_SECRET } from '../helpers/test-app';
import { captureMail } from '../mail/mail-capture';
import { processInbox } from '../../connectors/shopify/process-inbox';
import { connectedBrand as connectedShop, exactNumber, fixtureText, referrals, refundOf, sendWebhook, setUpShopifyTests, variant } from './shopify-test-kit';

const context = setUpShopifyTests();

/** A brand connected to a fresh shop through a custom app granted `scopes`, holding nothing (rewards approved at once). */
const connectedBrand = (settings: object = {}, scopes?: string[]) =>
  connectedShop(context, { reward_type: 'fixed', reward_value: 10, reward_hold_days: 0, ...settings }, scopes);

/** A friend's order of 80.00 referred by the advocate's code, through the REST API. */
async function referredOrder(headers: Record<string, string>, code: string) {
  const order = await context.app.http.post('/api/v1/track/conversion').set(headers).send({ email: `friend-${uniqueOrderId()}@codes.example`, order_id: uniqueOrderId(), order_value: 80, referral_code: code });
  expect(order.status).toBe(201);
}

/** One pass of the reward-code worker for one brand. */
const issuePass = (brandId: string) =>
  issueRewardCodes(context.app.db, { brandId, apiFor: (id) => adminApiForBrand(context.app.db, id, { encryptionSecret: TEST_SECRET, appConfig: null }) });

const issuesOf = (db: Knex, brandId: string) => db('reward_issues').where({ brand_id: brandId }).orderBy('issue_id');
const codesOn = (shop: string, code: string) => (context.fake.discounts.get(shop) ?? []).filter((discount) => discount.anchor === code);

describe("a coupon brand's approved reward becomes a single-use Shopify code", () => {
  it('a first Shopify link sets reward_fulfilment coupon; the merchant may switch it back to payout, and an unknown fulfilment is refused naming the field', async () => {
    const { brand } = await connectedBrand();
    const settings = await context.app.http.get('/api/v1/brand').set(brand.headers);
    expect(settings.body.data).toMatchObject({ reward_fulfilment: 'coupon', fulfil_min_amount: 0 });
    const refused = await context.app.http.patch('/api/v1/brand').set(brand.headers).send({ reward_fulfilment: 'gift_card' });
    expect([refused.status, refused.body.error]).toEqual([400, expect.stringMatching(/^reward_fulfilment\b/)]);
    const negative = await context.app.http.patch('/api/v1/brand').set(brand.headers).send({ fulfil_min_amount: -1 });
    expect([negative.status, negative.body.error]).toEqual([400, expect.stringMatching(/^fulfil_min_amount\b/)]);
    const payout = await context.app.http.patch('/api/v1/brand').set(brand.headers).send({ reward_fulfilment: 'payout' });
    expect(payout.body.data.reward_fulfilment).toBe('payout');
  });

  it('the dashboard Settings page shows the fulfilment with what each option means, and saves a switch to payout and a smallest code', async () => {
    const { brand } = await connectedBrand();
    const agent = await signedInAgent(context.app.app, context.app.db, brand.brandId);
    const page = await agent.get('/dashboard/settings');
    expect(page.text).toContain('How advocates get their reward');
    expect(page.text).toContain('coupon: approved money becomes a single-use discount code for that amount on your store');
    const form = settingsFormOf(page.text);
    expect(form).toMatchObject({ reward_fulfilment: 'coupon', fulfil_min_amount: '0' });
    const saved = await agent.post('/dashboard/settings').type('form').send({ ...form, reward_fulfilment: 'payout', fulfil_min_amount: '25.50', csrf_token: csrfTokenOf(page.text) });
    expect(saved.status).toBeLessThan(400);
    const settings = await context.app.http.get('/api/v1/brand').set(brand.headers);
    expect(settings.body.data).toMatchObject({ reward_fulfilment: 'payout', fulfil_min_amount: 25.5 });
  });

  it('an approved reward of 10.00 (hold 0) becomes one single-use 10.00 code restricted to the advocate\'s customer; the balance shows it issued, not payable, and Payouts lists nothing', async () => {
    const { brand, shop } = await connectedBrand();
    const { db } = context.app;
    const advocate = await givenAdvocate(db, brand.brandId);
    // The advocate joined on the app proxy page logged in as customer 7001 (storefront-customers.ts records who they became).
    await db('shopify_storefront_customers').insert({ brand_id: brand.brandId, shop_domain: shop, customer_id: '7001', advocate_id: advocate.advocateId });
    await referredOrder(brand.headers, advocate.code);

    const [issue] = await issuesOf(db, brand.brandId);
    expect(issue).toMatchObject({ advocate_id: String(advocate.advocateId), amount: '10.00', status: 'pending', code: expect.stringMatching(/^RWD-[0-9A-F]{10}$/) });
    const balance = await context.app.http.get(`/api/v1/advocates/${advocate.advocateId}/balance`).set(brand.headers);
    expect(balance.body.data).toMatchObject({ credited: 10, issued: 10, approved: 0, balance: 0, payable: 0 });
    const payouts = await context.app.http.get('/api/v1/payouts').set(brand.headers);
    expect(payouts.body.data).toMatchObject({ count: 0, payouts: [] });
    // The brand's systems subscribe to reward.issued (a private address: the event is what is checked here).
    const endpoint = await context.app.http.post('/api/v1/webhook-endpoints').set(brand.headers).send({ url: 'https://hooks.codes.example/referrals', events: ['reward.issued'] });
    expect(endpoint.status).toBe(201);
    expect(await db('webhook_events').where({ brand_id: brand.brandId, type: 'reward.issued' })).toEqual([]);

    // The advocate's own pages (GET /advocates/by-email: Medusa's /me; the Shopify app proxy page) list the code as on its way.
    const byEmail = () => context.app.http.get('/api/v1/advocates/by-email').query({ email: advocate.email }).set(brand.headers);
    expect((await byEmail()).body.data.reward_codes).toEqual([
      { issue_id: Number(issue!.issue_id), method: 'code', code: issue!.code, amount: 10, currency: 'USD', state: 'on_its_way', created_at: expect.any(String), issued_at: null },
    ]);

    expect(await issuePass(brand.brandId)).toBe(1);
    expect((await byEmail()).body.data.reward_codes).toMatchObject([{ code: issue!.code, state: 'ready', issued_at: expect.any(String) }]);
    const [made] = codesOn(shop, issue!.code);
    expect(codesOn(shop, issue!.code)).toHaveLength(1);
    expect(made!.input).toMatchObject({
      code: issue!.code,
      usageLimit: 1,
      appliesOncePerCustomer: true,
      context: { customers: { add: ['gid://shopify/Customer/7001'] } },
      customerGets: { items: { all: true }, value: { discountAmount: { amount: '10.00', appliesOnEachItem: false } } },
      title: expect.stringContaining('referral reward'),
    });
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ status: 'issued', platform_id: made!.id, last_error: null }]);
    expect(await issuePass(brand.brandId)).toBe(0);
    // reward.issued, once, written with the issue's `issued` status: the code the store has.
    const events = await db('webhook_events').where({ brand_id: brand.brandId, type: 'reward.issued' });
    expect(events.map((event) => (typeof event.payload === 'string' ? JSON.parse(event.payload) : event.payload).data)).toEqual([
      { issue_id: Number(issue!.issue_id), advocate_id: advocate.advocateId, amount: 10, currency: 'USD', method: 'code', code: issue!.code, platform: 'shopify', platform_id: made!.id },
    ]);
  });

  it('a restart between Shopify\'s answer and the commit (the commit failed after the code was made) still leaves exactly one code: the next pass finds it', async () => {
    const { brand, shop } = await connectedBrand();
    const { db } = context.app;
    const advocate = await givenAdvocate(db, brand.brandId);
    await referredOrder(brand.headers, advocate.code);
    // The commit that records the issue as issued fails, as a process killed after Shopify's answer never commits it.
    const trigger = `fail_issue_${brand.brandId.replace(/-/g, '')}`;
    await db.raw(`CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.status = 'issued' AND NEW.brand_id = '${brand.brandId}' THEN RAISE EXCEPTION 'killed before the commit'; END IF; RETURN NEW; END $$`);
    await db.raw(`CREATE TRIGGER ${trigger} BEFORE UPDATE ON reward_issues FOR EACH ROW EXECUTE FUNCTION ${trigger}()`);
    try {
      await issuePass(brand.brandId);
    } finally {
      await db.raw(`DROP TRIGGER ${trigger} ON reward_issues`);
      await db.raw(`DROP FUNCTION ${trigger}()`);
    }
    const [failed] = await issuesOf(db, brand.brandId);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, last_error: expect.stringContaining('killed before the commit') });
    expect(codesOn(shop, failed!.code)).toHaveLength(1);
    expect(context.fake.graphqlCalls(shop, 'CreateRewardCode')).toHaveLength(1);

    // Its retry comes due (backoff), and the worker runs again.
    await db('reward_issues').where({ brand_id: brand.brandId }).update({ next_attempt_at: db.fn.now() });
    expect(await issuePass(brand.brandId)).toBe(1);
    expect(context.fake.graphqlCalls(shop, 'CreateRewardCode')).toHaveLength(1);
    expect(codesOn(shop, failed!.code)).toHaveLength(1);
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ status: 'issued', platform_id: codesOn(shop, failed!.code)[0]!.id, attempts: 2 }]);
  });

  it('without write_discounts the issue fails naming the scope, waits (backoff), and is issued once the scope is granted; an unknown customer gets a code anyone with it may use', async () => {
    const { brand, shop } = await connectedBrand({}, ['read_orders']);
    const { db } = context.app;
    const advocate = await givenAdvocate(db, brand.brandId);
    await referredOrder(brand.headers, advocate.code);
    await issuePass(brand.brandId);
    const [failed] = await issuesOf(db, brand.brandId);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, last_error: expect.stringContaining('write_discounts') });
    expect(new Date(failed!.next_attempt_at).getTime()).toBeGreaterThan(Date.now() + 20_000);
    expect(await issuePass(brand.brandId)).toBe(0);
    const status = await referrals(context.app, ['shopify', 'codes', '--brand', brand.brandId, '--json']);
    expect(JSON.parse(status.stdout).reward_codes).toMatchObject({ pending: 0, issued: 0, failed: 1, failures: [{ code: failed!.code, amount: '10.00', attempts: 1, last_error: expect.stringContaining('Grant the app the write_discounts scope') }] });

    // The merchant grants the scope and the operator retries now instead of waiting for the backoff.
    context.fake.scopes.set(shop, ['read_orders', 'write_discounts']);
    const retried = await referrals(context.app, ['shopify', 'codes', '--brand', brand.brandId, '--retry-rewards', '--json']);
    expect(JSON.parse(retried.stdout)).toMatchObject({ reward_codes_retried: 1 });
    await issuePass(brand.brandId);
    expect(codesOn(shop, failed!.code)[0]!.input).toMatchObject({ context: { all: 'ALL' }, usageLimit: 1 });
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ status: 'issued' }]);
  });

  it('the merchant sees a refused code on Payouts with the store\'s reason and tries it again from the dashboard (audited); the advocate\'s page follows it to "on your store"', async () => {
    const { brand, shop } = await connectedBrand({}, ['read_orders']);
    const { db } = context.app;
    const advocate = await givenAdvocate(db, brand.brandId);
    await referredOrder(brand.headers, advocate.code);
    await issuePass(brand.brandId);
    const [failed] = await issuesOf(db, brand.brandId);
    const agent = await signedInAgent(context.app.app, db, brand.brandId);

    const payouts = await agent.get('/dashboard/payouts');
    expect(payouts.text).toContain('Approved rewards become single-use codes on your store');
    expect(payouts.text).toContain('Reward codes your store refused');
    expect(payouts.text).toContain(`<code>${failed!.code}</code> · 10.00 USD`);
    expect(payouts.text).toContain('Grant the app the write_discounts scope');
    const advocatePage = await agent.get(`/dashboard/advocates/${advocate.advocateId}`);
    expect(advocatePage.text).toContain('<h2>Reward codes</h2>');
    expect(advocatePage.text).toContain('not on your store yet');

    // A forged post (no CSRF token) changes nothing.
    const forged = await agent.post('/dashboard/reward-codes/retry').type('form').send({ issue_id: String(failed!.issue_id), back: 'payouts' });
    expect(forged.status).toBe(403);
    const hostile = await agent.post('/dashboard/reward-codes/retry').type('form').send({ issue_id: '<b>x</b>', back: 'payouts', csrf_token: csrfTokenOf(payouts.text) });
    expect([hostile.status, hostile.text.includes('<b>x</b>')]).toEqual([400, false]);

    context.fake.scopes.set(shop, ['read_orders', 'write_discounts']);
    const retried = await agent.post('/dashboard/reward-codes/retry').type('form').send({ issue_id: String(failed!.issue_id), back: String(advocate.advocateId), csrf_token: csrfTokenOf(payouts.text) });
    expect([retried.status, retried.headers.location]).toEqual([303, `/dashboard/advocates/${advocate.advocateId}?done=retried&retried=1`]);
    const after = await agent.get(retried.headers.location!);
    expect(after.text).toContain('1 code is tried again within a minute.');
    expect(await db('audit_log').where({ brand_id: brand.brandId, action: 'reward_issue.retry' })).toEqual([
      expect.objectContaining({ subject: `reward_issue:${failed!.issue_id}`, actor: 'operator (CLI sign-in link)' }),
    ]);
    await issuePass(brand.brandId);
    const issued = await agent.get(`/dashboard/advocates/${advocate.advocateId}`);
    expect(issued.text).toContain('on your store, not used yet');
    expect((await agent.get('/dashboard/payouts')).text).not.toContain('Reward codes your store refused');
  });

  it('fulfil_min_amount 15: a first 10.00 waits in the balance, the second reward issues one code of 20.00; a payout brand issues nothing and pays by hand', async () => {
    const { brand } = await connectedBrand({ fulfil_min_amount: 15 });
    const { db } = context.app;
    const advocate = await givenAdvocate(db, brand.brandId);
    await referredOrder(brand.headers, advocate.code);
    expect(await issuesOf(db, brand.brandId)).toEqual([]);
    await referredOrder(brand.headers, advocate.code);
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ amount: '20.00', status: 'pending' }]);
    const balance = await context.app.http.get(`/api/v1/advocates/${advocate.advocateId}/balance`).set(brand.headers);
    expect(balance.body.data).toMatchObject({ credited: 20, issued: 20, payable: 0 });

    const manual = await givenBrand(db, { reward_type: 'fixed', reward_value: 10, reward_hold_days: 0 });
    const paid = await givenAdvocate(db, manual.brandId);
    await referredOrder(manual.headers, paid.code);
    expect(await issuesOf(db, manual.brandId)).toEqual([]);
    const payouts = await context.app.http.get('/api/v1/payouts').set(manual.headers);
    expect(payouts.body.data).toMatchObject({ count: 1, payouts: [{ advocate_id: paid.advocateId, amount: 10 }] });
  });
});

describe('spending a reward code', () => {
  it("a friend's paid order carrying the advocate's code records the advocate's claim (type advocate) that spends it: redeemed 10.00, nothing issued or payable left; the order delivered again records nothing more", async () => {
    const { brand, shop } = await connectedBrand();
    const { db } = context.app;
    const advocate = await givenAdvocate(db, brand.brandId);
    await referredOrder(brand.headers, advocate.code);
    await issuePass(brand.brandId);
    const [issue] = await issuesOf(db, brand.brandId);
    const orderId = String(Date.now());
    const order = variant(fixtureText('orders-paid.webhook-sample.json'), (payload) => {
      payload.id = exactNumber(orderId);
      payload.test = false;
      payload.email = 'friend-spends@codes.example';
      payload.discount_codes = [{ code: issue!.code.toLowerCase(), amount: '10.00', type: 'fixed_amount' }];
    });
    for (const webhookId of [`paid-${orderId}`, `paid-${orderId}-again`]) {
      expect((await sendWebhook(context.app, order, { topic: 'orders/paid', shop, webhookId, secret: 'custom-secret' })).status).toBe(200);
      await processInbox(db, { brandId: brand.brandId });
    }

    const claims = await db('claims').where({ brand_id: brand.brandId, type: 'advocate' });
    expect(claims).toEqual([expect.objectContaining({ advocate_id: String(advocate.advocateId), referral_code: advocate.code, order_id: orderId, discount_applied: '10.00', source: 'shopify', status: 'converted' })]);
    expect(await db('conversions').where({ brand_id: brand.brandId, order_id: orderId })).toEqual([]);
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ status: 'issued', spent_claim_id: claims[0]!.claim_id }]);
    const own = await context.app.http.get('/api/v1/advocates/by-email').query({ email: advocate.email }).set(brand.headers);
    expect(own.body.data.reward_codes).toMatchObject([{ code: issue!.code, amount: 10, state: 'used' }]);
    const balance = await context.app.http.get(`/api/v1/advocates/${advocate.advocateId}/balance`).set(brand.headers);
    expect(balance.body.data).toMatchObject({ credited: 10, issued: 0, redeemed: 10, balance: 0, payable: 0 });

    // The friend's order refunded in full: the claim is refunded and its 10.00 returns to the advocate (redemption_return).
    expect((await sendWebhook(context.app, refundOf(orderId, `${orderId}1`, '398.00'), { topic: 'refunds/create', shop, secret: 'custom-secret' })).status).toBe(200);
    await processInbox(db, { brandId: brand.brandId });
    expect(await db('claims').where({ brand_id: brand.brandId, claim_id: claims[0]!.claim_id }).first()).toMatchObject({ status: 'refunded' });
    const returned = await context.app.http.get(`/api/v1/advocates/${advocate.advocateId}/balance`).set(brand.headers);
    expect(returned.body.data).toMatchObject({ credited: 10, issued: 0, redeemed: 0, balance: 10 });
  });
});

describe('the reward_issued email', () => {
  const { sendDue, receivedBy } = captureMail(() => context.app.db);

  it('arrives once the code is made, with the code, the amount and how to use it (French for a French program); none while the code is not made, none when switched off', async () => {
    const { brand } = await connectedBrand({ language: 'fr', email_reward_approved: false });
    const { db } = context.app;
    const advocate = await givenAdvocate(db, brand.brandId, { first_name: 'Léa' });
    await referredOrder(brand.headers, advocate.code);
    await sendDue(brand.brandId);
    const received = () => receivedBy(advocate.email);
    expect(received()).toHaveLength(0);

    await issuePass(brand.brandId);
    await sendDue(brand.brandId);
    const [issue] = await issuesOf(db, brand.brandId);
    expect(received()).toHaveLength(1);
    expect(received()[0]!.subject).toMatch(/Votre récompense de 10,00\s\$US/);
    expect(received()[0]!.text).toContain(`Saisissez le code ${issue!.code} lors du paiement. Il est valable une fois, pour une commande.`);
    expect(received()[0]!.text).toContain('Bonjour Léa');

    const quiet = await connectedBrand({ email_reward_issued: false, email_reward_approved: false });
    const other = await givenAdvocate(db, quiet.brand.brandId);
    await referredOrder(quiet.brand.headers, other.code);
    await issuePass(quiet.brand.brandId);
    await sendDue(quiet.brand.brandId);
    expect(await db('mail_messages').where({ brand_id: quiet.brand.brandId, template: 'reward_issued' })).toEqual([]);
  });
});

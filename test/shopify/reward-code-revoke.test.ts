import type { Knex } from 'knex';
import { type AdminApi, adminApiForBrand } from '../../connectors/shopify/admin-api';
import { processInbox } from '../../connectors/shopify/process-inbox';
import { issueRewardCodes } from '../../connectors/shopify/reward-code-worker';
import { csrfTokenOf, settingsFormOf, signedInAgent } from '../dashboard/dashboard-helpers';
import { givenAdvocate } from '../helpers/fixtures';
import { TEST_SECRET } from '../helpers/test-app';
import { captureMail } from '../mail/mail-capture';
import { connectedBrand as connectedShop, exactNumber, fixtureText, referrals, refundOf, sendWebhook, setUpShopifyTests, variant } from './shopify-test-kit';

const context = setUpShopifyTests();

/** A brand connected to a fresh shop, a fixed 10.00 reward approved at once (docs/merchants/reward-lifecycle.md "Fulfilment"). */
const connectedBrand = (settings: object = {}) => connectedShop(context, { reward_type: 'fixed', reward_value: 10, reward_hold_days: 0, fraud_velocity: false, ...settings });

let sequence = 0;
/** A Shopify order id no other test uses. */
const orderNumber = () => `${Date.now()}${String((sequence += 1)).padStart(4, '0')}`;

/** An orders/paid delivery (the published sample, 398.00) from a customer of its own, worked by the inbox. Returns the order id. */
async function paidOrder(shop: string, brandId: string, discountCodes: Array<{ code: string; amount: string; type: string }>): Promise<string> {
  const orderId = orderNumber();
  const body = variant(fixtureText('orders-paid.webhook-sample.json'), (payload) => {
    payload.id = exactNumber(orderId);
    payload.test = false;
    payload.email = `friend-${orderId}@revoke.example`;
    payload.customer.id = exactNumber(orderId);
    payload.customer.email = payload.email;
    payload.discount_codes = discountCodes;
  });
  expect((await sendWebhook(context.app, body, { topic: 'orders/paid', shop, secret: 'custom-secret' })).status).toBe(200);
  await processInbox(context.app.db, { brandId });
  return orderId;
}

/** A friend's order referred by the advocate's code: a 10.00 reward, approved at once. */
const referredOrder = (shop: string, brandId: string, referralCode: string) => paidOrder(shop, brandId, [{ code: referralCode, amount: '10.00', type: 'fixed_amount' }]);

/** An order paid with a reward code: Shopify counts the use on the code, and the order's webhook comes. */
async function orderPaidWith(shop: string, brandId: string, rewardCode: string): Promise<string> {
  for (const discount of codesOn(shop, rewardCode)) discount.uses = (discount.uses ?? 0) + 1;
  return paidOrder(shop, brandId, [{ code: rewardCode.toLowerCase(), amount: '10.00', type: 'fixed_amount' }]);
}

/** A refunds/create delivery of `amount` of the order, worked by the inbox. */
async function refund(shop: string, brandId: string, orderId: string, amount: string): Promise<void> {
  expect((await sendWebhook(context.app, refundOf(orderId, orderNumber(), amount), { topic: 'refunds/create', shop, secret: 'custom-secret' })).status).toBe(200);
  await processInbox(context.app.db, { brandId });
}

const shopApi = (brandId: string) => adminApiForBrand(context.app.db, brandId, { encryptionSecret: TEST_SECRET, appConfig: null });
/** One pass of the reward-code worker for one brand. */
const pass = (brandId: string, apiFor: (brandId: string) => Promise<AdminApi> = shopApi) => issueRewardCodes(context.app.db, { brandId, apiFor });

const issuesOf = (db: Knex, brandId: string) => db('reward_issues').where({ brand_id: brandId }).orderBy('issue_id');
const codesOn = (shop: string, code: string) => (context.fake.discounts.get(shop) ?? []).filter((discount) => discount.anchor === code);
const balanceOf = async (brand: { headers: Record<string, string> }, advocateId: number) =>
  (await context.app.http.get(`/api/v1/advocates/${advocateId}/balance`).set(brand.headers)).body.data;

/** The advocate's ledger entries of kind `issued`, by issue: each issue's money out (−) and back (+). */
async function issuedEntries(db: Knex, brandId: string, advocateId: number): Promise<Array<{ issue_id: string; amount: string; reason: string }>> {
  return db('reward_ledger').where({ brand_id: brandId, advocate_id: advocateId, kind: 'issued' }).orderBy('entry_id').select('issue_id', 'amount', 'reason');
}

/** Every ledger entry of the advocate summed: what they have earned and not spent, paid or been handed. */
async function ledgerSum(db: Knex, brandId: string, advocateId: number): Promise<string> {
  const [row] = await db('reward_ledger').where({ brand_id: brandId, advocate_id: advocateId }).sum({ total: 'amount' });
  return Number(row!.total).toFixed(2);
}

describe('a refund of the referred order takes an unused reward code back', () => {
  it('a 10.00 code unused, the referred order refunded half: the old code is deleted on the shop and a 5.00 code issued; the ledger sums exact, nothing owed, nothing on Payouts', async () => {
    const { brand, shop } = await connectedBrand();
    const { db } = context.app;
    const advocate = await givenAdvocate(db, brand.brandId);
    const orderId = await referredOrder(shop, brand.brandId, advocate.code);
    await pass(brand.brandId);
    const [first] = await issuesOf(db, brand.brandId);
    expect(first).toMatchObject({ amount: '10.00', status: 'issued' });
    expect(codesOn(shop, first!.code)).toHaveLength(1);

    await refund(shop, brand.brandId, orderId, '199.00');
    // The code is still live on the store: marked to be taken back, nothing returned yet.
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ issue_id: first!.issue_id, status: 'revoking', revoke_reason: 'refund' }]);
    expect(await issuedEntries(db, brand.brandId, advocate.advocateId)).toEqual([{ issue_id: first!.issue_id, amount: '-10.00', reason: 'issued as a single-use code' }]);
    // The advocate is told what was taken back; their code covers it, so they owe nothing.
    const [reversedMail] = await db('mail_messages').where({ brand_id: brand.brandId, template: 'reward_reversed' });
    expect(reversedMail.data).toMatchObject({ amount: '5.00' });
    expect(reversedMail.data.owed).toBeUndefined();

    expect(await pass(brand.brandId)).toBe(1);
    expect(context.fake.graphqlCalls(shop, 'DeleteRewardCode')).toHaveLength(1);
    expect(codesOn(shop, first!.code)).toEqual([]);
    const [revoked, replacement] = await issuesOf(db, brand.brandId);
    expect(replacement).toMatchObject({ amount: '5.00', status: 'pending' });
    expect(revoked).toMatchObject({ status: 'revoked', revoke_reason: 'refund', replaced_by: replacement!.issue_id, revoked_at: expect.any(Date) });
    expect(await issuedEntries(db, brand.brandId, advocate.advocateId)).toEqual([
      { issue_id: first!.issue_id, amount: '-10.00', reason: 'issued as a single-use code' },
      { issue_id: first!.issue_id, amount: '10.00', reason: 'reward code withdrawn after a refund' },
      { issue_id: replacement!.issue_id, amount: '-5.00', reason: 'issued as a single-use code' },
    ]);

    // The next pass makes the 5.00 code on the shop.
    await pass(brand.brandId);
    expect(codesOn(shop, replacement!.code)[0]!.input).toMatchObject({ usageLimit: 1, customerGets: { value: { discountAmount: { amount: '5.00' } } } });
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ status: 'revoked' }, { status: 'issued' }]);
    expect(await balanceOf(brand, advocate.advocateId)).toMatchObject({ credited: 10, reversed: 5, issued: 5, approved: 0, balance: 0, payable: 0, owed: 0 });
    expect(await ledgerSum(db, brand.brandId, advocate.advocateId)).toBe('0.00');
    const payouts = await context.app.http.get('/api/v1/payouts').set(brand.headers);
    expect(payouts.body.data).toMatchObject({ count: 0, owed: [] });
    // The advocate's own page: the old code withdrawn, the new one ready.
    const mine = await context.app.http.get('/api/v1/advocates/by-email').query({ email: advocate.email }).set(brand.headers);
    expect(mine.body.data.reward_codes).toMatchObject([
      { code: replacement!.code, amount: 5, state: 'ready' },
      { code: first!.code, amount: 10, state: 'withdrawn' },
    ]);
  });

  it('refunded in full before use: the code is removed and nothing new issued; the advocate owes nothing and Payouts lists nothing', async () => {
    const { brand, shop } = await connectedBrand();
    const { db } = context.app;
    const advocate = await givenAdvocate(db, brand.brandId);
    const orderId = await referredOrder(shop, brand.brandId, advocate.code);
    await pass(brand.brandId);
    const [issue] = await issuesOf(db, brand.brandId);

    await refund(shop, brand.brandId, orderId, '398.00');
    await pass(brand.brandId);
    expect(codesOn(shop, issue!.code)).toEqual([]);
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ issue_id: issue!.issue_id, status: 'revoked', replaced_by: null }]);
    expect(await balanceOf(brand, advocate.advocateId)).toMatchObject({ credited: 10, reversed: 10, issued: 0, balance: 0, owed: 0, payable: 0 });
    expect(await ledgerSum(db, brand.brandId, advocate.advocateId)).toBe('0.00');
    expect((await context.app.http.get('/api/v1/payouts').set(brand.headers)).body.data).toMatchObject({ count: 0, owed: [] });
    expect(await pass(brand.brandId)).toBe(0);
  });

  it("a refund before the code reached the store: nothing to delete on the shop, its money returns in the same pass's transaction", async () => {
    const { brand, shop } = await connectedBrand();
    const { db } = context.app;
    const advocate = await givenAdvocate(db, brand.brandId);
    const orderId = await referredOrder(shop, brand.brandId, advocate.code);
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ status: 'pending' }]);
    await refund(shop, brand.brandId, orderId, '398.00');
    await pass(brand.brandId);
    expect(context.fake.graphqlCalls(shop, 'CreateRewardCode')).toEqual([]);
    expect(context.fake.graphqlCalls(shop, 'DeleteRewardCode')).toEqual([]);
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ status: 'revoked', replaced_by: null }]);
    expect(await balanceOf(brand, advocate.advocateId)).toMatchObject({ issued: 0, owed: 0 });
    expect(await db('mail_messages').where({ brand_id: brand.brandId, template: 'reward_issued' })).toEqual([]);
  });

  it('a refund while the code is being made: the store gets it but it is not recorded issued, no email or event; the next pass deletes it and issues what is left', async () => {
    const { brand, shop } = await connectedBrand();
    const { db } = context.app;
    const advocate = await givenAdvocate(db, brand.brandId);
    const orderId = await referredOrder(shop, brand.brandId, advocate.code);
    // The refund's webhook is worked while the worker's create call is on its way to Shopify.
    const refundDuringCreate = async (brandId: string): Promise<AdminApi> => {
      const api = await shopApi(brandId);
      return {
        shop: api.shop,
        async request<T>(query: string, variables?: Record<string, unknown>): Promise<T> {
          if (query.includes('CreateRewardCode')) await refund(shop, brand.brandId, orderId, '199.00');
          return api.request<T>(query, variables);
        },
      };
    };
    await pass(brand.brandId, refundDuringCreate);
    const [made] = await issuesOf(db, brand.brandId);
    expect(codesOn(shop, made!.code)).toHaveLength(1);
    expect(made).toMatchObject({ status: 'revoking', platform_id: codesOn(shop, made!.code)[0]!.id, lease_until: null, issued_at: null });
    expect(await db('mail_messages').where({ brand_id: brand.brandId, template: 'reward_issued' })).toEqual([]);
    expect(await db('webhook_events').where({ brand_id: brand.brandId, type: 'reward.issued' })).toEqual([]);

    await pass(brand.brandId);
    expect(codesOn(shop, made!.code)).toEqual([]);
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ status: 'revoked' }, { amount: '5.00', status: 'pending' }]);
  });

  it('a kill between Shopify\'s delete and the commit: the next pass finds no code and records the return once, with one new code', async () => {
    const { brand, shop } = await connectedBrand();
    const { db } = context.app;
    const advocate = await givenAdvocate(db, brand.brandId);
    const orderId = await referredOrder(shop, brand.brandId, advocate.code);
    await pass(brand.brandId);
    const [issue] = await issuesOf(db, brand.brandId);
    await refund(shop, brand.brandId, orderId, '199.00');

    // The commit that records the issue revoked fails, as a process killed after Shopify's answer never commits it.
    const trigger = `fail_revoke_${brand.brandId.replace(/-/g, '')}`;
    await db.raw(`CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.status = 'revoked' AND NEW.brand_id = '${brand.brandId}' THEN RAISE EXCEPTION 'killed before the commit'; END IF; RETURN NEW; END $$`);
    await db.raw(`CREATE TRIGGER ${trigger} BEFORE UPDATE ON reward_issues FOR EACH ROW EXECUTE FUNCTION ${trigger}()`);
    try {
      await pass(brand.brandId);
    } finally {
      await db.raw(`DROP TRIGGER ${trigger} ON reward_issues`);
      await db.raw(`DROP FUNCTION ${trigger}()`);
    }
    expect(codesOn(shop, issue!.code)).toEqual([]);
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ status: 'revoking', last_error: expect.stringContaining('killed before the commit') }]);
    expect(await issuedEntries(db, brand.brandId, advocate.advocateId)).toHaveLength(1);

    // Its retry comes due (backoff), and the worker runs again.
    await db('reward_issues').where({ brand_id: brand.brandId }).update({ next_attempt_at: db.fn.now() });
    expect(await pass(brand.brandId)).toBe(1);
    expect(context.fake.graphqlCalls(shop, 'DeleteRewardCode')).toHaveLength(1);
    const [revoked, replacement] = await issuesOf(db, brand.brandId);
    expect(revoked).toMatchObject({ status: 'revoked', replaced_by: replacement!.issue_id });
    const returns = (await issuedEntries(db, brand.brandId, advocate.advocateId)).filter((entry) => entry.issue_id === issue!.issue_id && Number(entry.amount) > 0);
    expect(returns).toEqual([{ issue_id: issue!.issue_id, amount: '10.00', reason: 'reward code withdrawn after a refund' }]);
    expect(await issuesOf(db, brand.brandId)).toHaveLength(2);
    expect(await balanceOf(brand, advocate.advocateId)).toMatchObject({ issued: 5, owed: 0, balance: 0 });
  });
});

describe('a refund after the code was used', () => {
  it('a friend paid with the code, then the referred order is refunded: 10.00 owed; the next 10.00 reward pays it off first and issues nothing; the one after issues a code', async () => {
    const { brand, shop } = await connectedBrand();
    const { db } = context.app;
    const advocate = await givenAdvocate(db, brand.brandId);
    const orderId = await referredOrder(shop, brand.brandId, advocate.code);
    await pass(brand.brandId);
    const [issue] = await issuesOf(db, brand.brandId);
    await orderPaidWith(shop, brand.brandId, issue!.code);
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ status: 'issued', spent_claim_id: expect.any(String) }]);

    await refund(shop, brand.brandId, orderId, '398.00');
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ status: 'issued' }]);
    const [reversedMail] = await db('mail_messages').where({ brand_id: brand.brandId, template: 'reward_reversed' });
    expect(reversedMail.data).toMatchObject({ amount: '10.00', owed: '10.00' });
    // The API's balance is the ledger's sum (below zero); what a person reads is owed.
    expect(await balanceOf(brand, advocate.advocateId)).toMatchObject({ credited: 10, reversed: 10, redeemed: 10, issued: 0, balance: -10, owed: 10 });
    const payouts = await context.app.http.get('/api/v1/payouts').set(brand.headers);
    expect(payouts.body.data).toMatchObject({ count: 0, owed: [{ advocate_id: advocate.advocateId, amount: 10 }] });
    const agent = await signedInAgent(context.app.app, db, brand.brandId);
    expect((await agent.get('/dashboard/payouts')).text).toContain('from a refunded order; taken from their next rewards.');
    expect(await pass(brand.brandId)).toBe(0);

    // The next reward pays the debt off: nothing is issued.
    await referredOrder(shop, brand.brandId, advocate.code);
    expect(await issuesOf(db, brand.brandId)).toHaveLength(1);
    expect(await balanceOf(brand, advocate.advocateId)).toMatchObject({ credited: 20, owed: 0, balance: 0, payable: 0 });
    expect((await context.app.http.get('/api/v1/payouts').set(brand.headers)).body.data).toMatchObject({ count: 0, owed: [] });

    // The one after becomes a code.
    await referredOrder(shop, brand.brandId, advocate.code);
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ issue_id: issue!.issue_id }, { amount: '10.00', status: 'pending' }]);
    expect(await balanceOf(brand, advocate.advocateId)).toMatchObject({ credited: 30, issued: 10, owed: 0, balance: 0 });
    // 30.00 earned − 10.00 refunded − 10.00 spent on the friend's order − 10.00 on the new code: nothing unaccounted for.
    expect(await ledgerSum(db, brand.brandId, advocate.advocateId)).toBe('0.00');
  });

  it("used on the store before its order's webhook: the refund marks it, the worker sees Shopify's use and leaves it spent (nothing deleted); the late order records the claim; 10.00 owed", async () => {
    const { brand, shop } = await connectedBrand();
    const { db } = context.app;
    const advocate = await givenAdvocate(db, brand.brandId);
    const orderId = await referredOrder(shop, brand.brandId, advocate.code);
    await pass(brand.brandId);
    const [issue] = await issuesOf(db, brand.brandId);
    // The friend's checkout used the code; Shopify counts it, its orders/paid webhook is not here yet.
    codesOn(shop, issue!.code)[0]!.uses = 1;

    await refund(shop, brand.brandId, orderId, '398.00');
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ status: 'revoking' }]);
    await pass(brand.brandId);
    expect(context.fake.graphqlCalls(shop, 'DeleteRewardCode')).toEqual([]);
    expect(codesOn(shop, issue!.code)).toHaveLength(1);
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ status: 'used', spent_claim_id: null }]);
    expect(await issuedEntries(db, brand.brandId, advocate.advocateId)).toHaveLength(1);
    expect(await pass(brand.brandId)).toBe(0);

    await paidOrder(shop, brand.brandId, [{ code: issue!.code, amount: '10.00', type: 'fixed_amount' }]);
    const [claim] = await db('claims').where({ brand_id: brand.brandId, type: 'advocate' });
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ status: 'used', spent_claim_id: claim.claim_id }]);
    expect(await balanceOf(brand, advocate.advocateId)).toMatchObject({ redeemed: 10, issued: 0, owed: 10 });
    const mine = await context.app.http.get('/api/v1/advocates/by-email').query({ email: advocate.email }).set(brand.headers);
    expect(mine.body.data.reward_codes).toMatchObject([{ code: issue!.code, state: 'used' }]);
  });
});

describe('reward_code_expiry_days', () => {
  const mail = captureMail(() => context.app.db);

  it('the advocate hears it all, in order, through a real SMTP server: earned and approved, the code, what the refund took back and what is left, the new code', async () => {
    // Issue 40, Done when: "Emails arrive through a real SMTP server with the code and the reversal, in order".
    const { brand, shop } = await connectedBrand();
    const { db } = context.app;
    const advocate = await givenAdvocate(db, brand.brandId, { first_name: 'Ines' });
    const orderId = await referredOrder(shop, brand.brandId, advocate.code);
    await pass(brand.brandId);
    await refund(shop, brand.brandId, orderId, '199.00');
    while ((await pass(brand.brandId)) > 0); // the take-back, then the new code
    const [first, second] = await issuesOf(db, brand.brandId);
    expect([first!.status, second!.amount]).toEqual(['revoked', '5.00']);
    await mail.sendDue(brand.brandId);

    const mine = mail.receivedBy(advocate.email);
    const order = mine.map((received) => (received.text ?? '').includes(first!.code) ? `code ${first!.code}` : (received.text ?? '').includes(second!.code) ? `code ${second!.code}` : /taken back/.test(received.text ?? '') ? 'reversed' : 'other');
    expect(order.filter((kind) => kind !== 'other')).toEqual([`code ${first!.code}`, 'reversed', `code ${second!.code}`]);
    const reversed = mine.find((received) => /taken back/.test(received.text ?? ''))!;
    expect(reversed.text).toContain('5.00');
    expect(reversed.text).not.toMatch(/You now owe/);
    expect(mine.find((received) => (received.text ?? '').includes(second!.code))!.text).toContain('5.00');
  });

  it('is none by default and set by PATCH /api/v1/brand from 1 to 3650 days (refusals name the field), the dashboard Settings form and the CLI (none: no expiry)', async () => {
    const { brand } = await connectedBrand();
    const settings = await context.app.http.get('/api/v1/brand').set(brand.headers);
    expect(settings.body.data).toMatchObject({ reward_code_expiry_days: null });
    for (const days of [0, 3651, 1.5, 'soon']) {
      const refused = await context.app.http.patch('/api/v1/brand').set(brand.headers).send({ reward_code_expiry_days: days });
      expect([refused.status, refused.body.error]).toEqual([400, expect.stringMatching(/^reward_code_expiry_days\b/)]);
    }
    const set = await context.app.http.patch('/api/v1/brand').set(brand.headers).send({ reward_code_expiry_days: 90 });
    expect(set.body.data.reward_code_expiry_days).toBe(90);

    const agent = await signedInAgent(context.app.app, context.app.db, brand.brandId);
    const page = await agent.get('/dashboard/settings');
    expect(page.text).toContain('Codes expire after (days)');
    const form = settingsFormOf(page.text);
    expect(form).toMatchObject({ reward_code_expiry_days: '90' });
    const refused = await agent.post('/dashboard/settings').type('form').send({ ...form, reward_code_expiry_days: '0', csrf_token: csrfTokenOf(page.text) });
    expect(refused.text).toContain('Codes expire after (days) must be at least 1');
    await agent.post('/dashboard/settings').type('form').send({ ...form, reward_code_expiry_days: '', csrf_token: csrfTokenOf(page.text) });
    expect((await context.app.http.get('/api/v1/brand').set(brand.headers)).body.data.reward_code_expiry_days).toBeNull();

    const cli = await referrals(context.app, ['brand', 'settings', '--brand', brand.brandId, '--reward-code-expiry-days', '30', '--json']);
    expect(cli.code).toBe(0);
    expect((await context.app.http.get('/api/v1/brand').set(brand.headers)).body.data.reward_code_expiry_days).toBe(30);
    const tooLong = await referrals(context.app, ['brand', 'settings', '--brand', brand.brandId, '--reward-code-expiry-days', '4000']);
    expect(tooLong.stderr).toContain('--reward-code-expiry-days must be at most 3650 days');
    await referrals(context.app, ['brand', 'settings', '--brand', brand.brandId, '--reward-code-expiry-days', 'none']);
    expect((await context.app.http.get('/api/v1/brand').set(brand.headers)).body.data.reward_code_expiry_days).toBeNull();
  });

  it('a code of a brand whose codes last 30 days ends then on Shopify and its email says so; expired unused, it is removed and its money issued again as a new code', async () => {
    const { brand, shop } = await connectedBrand({ reward_code_expiry_days: 30, email_reward_approved: false });
    const { db } = context.app;
    const advocate = await givenAdvocate(db, brand.brandId);
    await referredOrder(shop, brand.brandId, advocate.code);
    const [issue] = await issuesOf(db, brand.brandId);
    const expiresAt = new Date(issue!.expires_at).getTime();
    expect(Math.abs(expiresAt - (new Date(issue!.created_at).getTime() + 30 * 86_400_000))).toBeLessThan(1000);
    await pass(brand.brandId);
    expect(codesOn(shop, issue!.code)[0]!.input).toMatchObject({ endsAt: new Date(expiresAt).toISOString() });
    await mail.sendDue(brand.brandId);
    const withCode = mail.receivedBy(advocate.email).find((received) => received.text?.includes(issue!.code));
    const day = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date(expiresAt));
    expect(withCode!.text).toContain(`It expires on ${day}; if it is not used by then, its value comes back to you as a new code.`);

    // Not expired yet: the pass leaves it. Then its day passes (the clock moved by its expires_at).
    expect(await pass(brand.brandId)).toBe(0);
    await db('reward_issues').where({ brand_id: brand.brandId, issue_id: issue!.issue_id }).update({ expires_at: db.raw("now() - interval '1 minute'") });
    expect(await pass(brand.brandId)).toBe(1);
    expect(codesOn(shop, issue!.code)).toEqual([]);
    const [expired, again] = await issuesOf(db, brand.brandId);
    expect(expired).toMatchObject({ status: 'revoked', revoke_reason: 'expired', replaced_by: again!.issue_id });
    expect(again).toMatchObject({ amount: '10.00', status: 'pending' });
    expect(new Date(again!.expires_at).getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect(await issuedEntries(db, brand.brandId, advocate.advocateId)).toEqual([
      { issue_id: issue!.issue_id, amount: '-10.00', reason: 'issued as a single-use code' },
      { issue_id: issue!.issue_id, amount: '10.00', reason: 'reward code expired' },
      { issue_id: again!.issue_id, amount: '-10.00', reason: 'issued as a single-use code' },
    ]);
    await pass(brand.brandId);
    expect(codesOn(shop, again!.code)).toHaveLength(1);
    expect(await balanceOf(brand, advocate.advocateId)).toMatchObject({ credited: 10, issued: 10, balance: 0, owed: 0 });
    const mine = await context.app.http.get('/api/v1/advocates/by-email').query({ email: advocate.email }).set(brand.headers);
    expect(mine.body.data.reward_codes).toMatchObject([{ code: again!.code, state: 'ready' }, { code: issue!.code, state: 'expired' }]);
  });

  it('an expired code that was used is not taken back: its claim spent it', async () => {
    const { brand, shop } = await connectedBrand({ reward_code_expiry_days: 30 });
    const { db } = context.app;
    const advocate = await givenAdvocate(db, brand.brandId);
    await referredOrder(shop, brand.brandId, advocate.code);
    await pass(brand.brandId);
    const [issue] = await issuesOf(db, brand.brandId);
    await orderPaidWith(shop, brand.brandId, issue!.code);
    await db('reward_issues').where({ brand_id: brand.brandId }).update({ expires_at: db.raw("now() - interval '1 minute'") });
    expect(await pass(brand.brandId)).toBe(0);
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ status: 'issued', spent_claim_id: expect.any(String) }]);
    expect(codesOn(shop, issue!.code)).toHaveLength(1);
  });
});

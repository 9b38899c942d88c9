import type { Knex } from 'knex';
import { adminApiForBrand } from '../../connectors/shopify/admin-api';
import { issueRewardCodes } from '../../connectors/shopify/reward-code-worker';
import { advocatePage } from '../../connectors/shopify/app-proxy-page';
import { advocateFigures } from '../../connectors/shopify/storefront-customers';
import { getBrand, updateBrand } from '../../core/brands/brand';
import { csrfTokenOf, settingsFormOf, signedInAgent } from '../dashboard/dashboard-helpers';
import { givenAdvocate, uniqueOrderId } from '../helpers/fixtures';
import { TEST_SECRET } from '../helpers/test-app';
import { captureMail } from '../mail/mail-capture';
import { connectedBrand as connectedShop, installApp, referrals, setUpShopifyTests } from './shopify-test-kit';

const context = setUpShopifyTests();

/** What store credit needs of the shop, besides the orders and the codes of a fallback. */
const STORE_CREDIT_SCOPES = ['read_orders', 'write_discounts', 'write_store_credit_account_transactions', 'read_store_credit_accounts', 'read_customers'];

/** A store_credit brand connected to a fresh shop through a custom app granted `scopes`, holding nothing (rewards approved at once). */
async function creditBrand(scopes = STORE_CREDIT_SCOPES, settings: object = {}) {
  const connected = await connectedShop(context, { reward_type: 'fixed', reward_value: 10, reward_hold_days: 0, ...settings }, scopes);
  // A first link sets coupon; the merchant then chooses store credit.
  const chosen = await context.app.http.patch('/api/v1/brand').set(connected.brand.headers).send({ reward_fulfilment: 'store_credit' });
  expect(chosen.body.data.reward_fulfilment).toBe('store_credit');
  return connected;
}

/** A friend's order of 80.00 referred by the advocate's code, through the REST API. */
async function referredOrder(headers: Record<string, string>, code: string) {
  const order = await context.app.http.post('/api/v1/track/conversion').set(headers).send({ email: `friend-${uniqueOrderId()}@credit.example`, order_id: uniqueOrderId(), order_value: 80, referral_code: code });
  expect(order.status).toBe(201);
}

/** One pass of the reward worker for one brand. */
const issuePass = (brandId: string) =>
  issueRewardCodes(context.app.db, { brandId, apiFor: (id) => adminApiForBrand(context.app.db, id, { encryptionSecret: TEST_SECRET, appConfig: null }) });

const issuesOf = (db: Knex, brandId: string) => db('reward_issues').where({ brand_id: brandId }).orderBy('issue_id');
const creditsOf = (shop: string, customer: string) =>
  (context.fake.storeCreditAccounts.get(shop) ?? []).filter((account) => account.owner === customer).flatMap((account) => account.transactions.filter((transaction) => transaction.kind === 'credit'));

/** An advocate who joined on the app proxy page signed in as the shop's customer `customerId` (storefront-customers.ts records who they became). */
async function advocateWithAccount(brandId: string, shop: string, customerId: string) {
  const advocate = await givenAdvocate(context.app.db, brandId);
  context.fake.customers.set(shop, [...(context.fake.customers.get(shop) ?? []), { id: `gid://shopify/Customer/${customerId}`, email: `someone-else-${customerId}@credit.example` }]);
  await context.app.db('shopify_storefront_customers').insert({ brand_id: brandId, shop_domain: shop, customer_id: customerId, advocate_id: advocate.advocateId });
  return advocate;
}

describe("a store_credit brand's approved reward is credited to the advocate's Shopify customer account", () => {
  it('PATCH /api/v1/brand, the CLI and the dashboard Settings page take store_credit, and Settings says what it means', async () => {
    const { brand } = await creditBrand();
    const settings = await context.app.http.get('/api/v1/brand').set(brand.headers);
    expect(settings.body.data.reward_fulfilment).toBe('store_credit');
    const coupon = await context.app.http.patch('/api/v1/brand').set(brand.headers).send({ reward_fulfilment: 'coupon' });
    expect(coupon.body.data.reward_fulfilment).toBe('coupon');
    const cli = await referrals(context.app, ['brand', 'settings', '--brand', brand.brandId, '--reward-fulfilment', 'store_credit', '--json']);
    expect(cli.code).toBe(0);
    expect((await context.app.http.get('/api/v1/brand').set(brand.headers)).body.data.reward_fulfilment).toBe('store_credit');

    const agent = await signedInAgent(context.app.app, context.app.db, brand.brandId);
    const page = await agent.get('/dashboard/settings');
    expect(page.text).toContain('store_credit: approved money is added to the store credit of the advocate&#39;s customer account');
    const form = settingsFormOf(page.text);
    expect(form).toMatchObject({ reward_fulfilment: 'store_credit' });
    const saved = await agent.post('/dashboard/settings').type('form').send({ ...form, reward_fulfilment: 'payout', csrf_token: csrfTokenOf(page.text) });
    expect(saved.status).toBeLessThan(400);
    await agent.post('/dashboard/settings').type('form').send({ ...form, reward_fulfilment: 'store_credit', csrf_token: csrfTokenOf(page.text) });
    expect((await context.app.http.get('/api/v1/brand').set(brand.headers)).body.data.reward_fulfilment).toBe('store_credit');
  });

  it("an approved 10.00 becomes one 10.00 USD credit (no expiry) on the customer the advocate joined as: issued, method store_credit, the transaction's id kept; reward.issued and the advocate's own list say store credit", async () => {
    const { brand, shop } = await creditBrand();
    const { db } = context.app;
    const advocate = await advocateWithAccount(brand.brandId, shop, '8001');
    await referredOrder(brand.headers, advocate.code);
    const [pending] = await issuesOf(db, brand.brandId);
    expect(pending).toMatchObject({ amount: '10.00', status: 'pending', method: 'store_credit' });
    const balance = await context.app.http.get(`/api/v1/advocates/${advocate.advocateId}/balance`).set(brand.headers);
    expect(balance.body.data).toMatchObject({ credited: 10, issued: 10, balance: 0, payable: 0 });
    const endpoint = await context.app.http.post('/api/v1/webhook-endpoints').set(brand.headers).send({ url: 'https://hooks.credit.example/referrals', events: ['reward.issued'] });
    expect(endpoint.status).toBe(201);

    expect(await issuePass(brand.brandId)).toBe(1);
    const credits = creditsOf(shop, 'gid://shopify/Customer/8001');
    expect(credits).toHaveLength(1);
    expect(credits[0]).toMatchObject({ amount: { amount: '10.00', currencyCode: 'USD' }, expiresAt: null });
    expect(context.fake.graphqlCalls(shop, 'CreateRewardCode')).toEqual([]);
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ status: 'issued', method: 'store_credit', platform_id: credits[0]!.id, no_customer_account: false, last_error: null }]);
    expect(await issuePass(brand.brandId)).toBe(0);

    const events = await db('webhook_events').where({ brand_id: brand.brandId, type: 'reward.issued' });
    expect(events.map((event) => (typeof event.payload === 'string' ? JSON.parse(event.payload) : event.payload).data)).toEqual([
      { issue_id: Number(pending!.issue_id), advocate_id: advocate.advocateId, amount: 10, currency: 'USD', method: 'store_credit', code: null, platform: 'shopify', platform_id: credits[0]!.id },
    ]);
    const mine = await context.app.http.get('/api/v1/advocates/by-email').query({ email: advocate.email }).set(brand.headers);
    expect(mine.body.data.reward_codes).toEqual([expect.objectContaining({ method: 'store_credit', code: null, amount: 10, state: 'ready' })]);
    // The advocate's page in the store (app proxy) lists it as store credit, not as a code.
    const figures = await advocateFigures(db, await getBrand(db, brand.brandId), advocate.advocateId);
    const page = advocatePage({ first_name: 'Ann', referral_code: advocate.code, share_link: null, currency: 'USD', figures });
    expect(page).toContain('<h2>Your store credit</h2>');
    expect(page).toContain('<li><strong>Store credit</strong>: 10.00 USD, added to your store credit, used at checkout when you are signed in</li>');
    expect(page).not.toContain(pending!.code);
  });

  it('finds the advocate by their email when they never joined signed in and the app may read customers', async () => {
    const { brand, shop } = await creditBrand();
    const advocate = await givenAdvocate(context.app.db, brand.brandId);
    context.fake.customers.set(shop, [{ id: 'gid://shopify/Customer/8101', email: advocate.email.toUpperCase() }]);
    await referredOrder(brand.headers, advocate.code);
    await issuePass(brand.brandId);
    expect(creditsOf(shop, 'gid://shopify/Customer/8101')).toHaveLength(1);
    expect(await issuesOf(context.app.db, brand.brandId)).toMatchObject([{ status: 'issued', method: 'store_credit' }]);
  });

  it('an advocate with no customer account (none by email; or read_customers not granted) gets a single-use code instead, recorded as method code', async () => {
    for (const scopes of [STORE_CREDIT_SCOPES, STORE_CREDIT_SCOPES.filter((scope) => scope !== 'read_customers')]) {
      const { brand, shop } = await creditBrand(scopes);
      const advocate = await givenAdvocate(context.app.db, brand.brandId);
      // Without read_customers the shop's customer with the advocate's email cannot be found.
      context.fake.customers.set(shop, scopes.includes('read_customers') ? [] : [{ id: 'gid://shopify/Customer/8201', email: advocate.email }]);
      await referredOrder(brand.headers, advocate.code);
      await issuePass(brand.brandId);
      const [issue] = await issuesOf(context.app.db, brand.brandId);
      expect(issue).toMatchObject({ status: 'issued', method: 'code', no_customer_account: true });
      const codes = (context.fake.discounts.get(shop) ?? []).filter((discount) => discount.anchor === issue!.code);
      expect(codes.map((code) => code.input)).toEqual([expect.objectContaining({ usageLimit: 1, context: { all: 'ALL' } })]);
      expect(context.fake.graphqlCalls(shop, 'CreditReward')).toEqual([]);
      const mine = await context.app.http.get('/api/v1/advocates/by-email').query({ email: advocate.email }).set(brand.headers);
      expect(mine.body.data.reward_codes).toEqual([expect.objectContaining({ method: 'code', code: issue!.code, state: 'ready' })]);
    }
  });

  it("a restart between Shopify's answer and the commit still leaves exactly one credit: the next pass finds the credit it sent and records it", async () => {
    const { brand, shop } = await creditBrand();
    const { db } = context.app;
    const advocate = await advocateWithAccount(brand.brandId, shop, '8301');
    // An earlier, unrelated credit of the same amount (before this issue's first try) is not taken for it.
    context.fake.storeCreditAccounts.set(shop, [
      {
        id: 'gid://shopify/StoreCreditAccount/1',
        owner: 'gid://shopify/Customer/8301',
        currency: 'USD',
        balance: 1000,
        transactions: [
          {
            __typename: 'StoreCreditAccountCreditTransaction',
            id: 'gid://shopify/StoreCreditAccountCreditTransaction/earlier',
            kind: 'credit',
            amount: { amount: '10.00', currencyCode: 'USD' },
            balanceAfterTransaction: { amount: '10.00', currencyCode: 'USD' },
            createdAt: new Date(Date.now() - 3_600_000).toISOString(),
            event: 'ADJUSTMENT',
            expiresAt: null,
            origin: null,
          },
        ],
      },
    ]);
    await referredOrder(brand.headers, advocate.code);
    const trigger = `fail_credit_${brand.brandId.replace(/-/g, '')}`;
    await db.raw(`CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.status = 'issued' AND NEW.brand_id = '${brand.brandId}' THEN RAISE EXCEPTION 'killed before the commit'; END IF; RETURN NEW; END $$`);
    await db.raw(`CREATE TRIGGER ${trigger} BEFORE UPDATE ON reward_issues FOR EACH ROW EXECUTE FUNCTION ${trigger}()`);
    try {
      await issuePass(brand.brandId);
    } finally {
      await db.raw(`DROP TRIGGER ${trigger} ON reward_issues`);
      await db.raw(`DROP FUNCTION ${trigger}()`);
    }
    const [failed] = await issuesOf(db, brand.brandId);
    expect(failed).toMatchObject({ status: 'failed', method: 'store_credit', attempts: 1, credit_sent_at: expect.any(Date), last_error: expect.stringContaining('killed before the commit') });
    expect(creditsOf(shop, 'gid://shopify/Customer/8301')).toHaveLength(2);

    await db('reward_issues').where({ brand_id: brand.brandId }).update({ next_attempt_at: db.fn.now() });
    expect(await issuePass(brand.brandId)).toBe(1);
    const credits = creditsOf(shop, 'gid://shopify/Customer/8301');
    expect(credits).toHaveLength(2);
    expect(context.fake.graphqlCalls(shop, 'CreditReward')).toHaveLength(1);
    expect(context.fake.graphqlCalls(shop, 'RecentStoreCredits')).toHaveLength(1);
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ status: 'issued', platform_id: credits[1]!.id, attempts: 2 }]);
    expect(credits[1]!.id).not.toBe('gid://shopify/StoreCreditAccountCreditTransaction/earlier');
  });

  it("a retry whose first credit never reached Shopify credits once: the look-up finds none", async () => {
    const { brand, shop } = await creditBrand();
    const { db } = context.app;
    const advocate = await advocateWithAccount(brand.brandId, shop, '8401');
    await referredOrder(brand.headers, advocate.code);
    // A first try sent nothing that Shopify kept (an outage answered it): its time is recorded.
    await db('reward_issues').where({ brand_id: brand.brandId }).update({ credit_sent_at: db.raw("now() - interval '1 minute'"), status: 'failed', attempts: 1 });
    await issuePass(brand.brandId);
    expect(creditsOf(shop, 'gid://shopify/Customer/8401')).toHaveLength(1);
    expect(context.fake.graphqlCalls(shop, 'RecentStoreCredits')).toHaveLength(1);
    expect(await issuesOf(db, brand.brandId)).toMatchObject([{ status: 'issued', method: 'store_credit' }]);
  });

  it('without write_store_credit_account_transactions the issue fails naming the scopes and credits nothing; shopify status and the dashboard name the missing scopes of a store_credit brand', async () => {
    const { brand, shop } = await creditBrand(['read_orders', 'write_discounts']);
    const advocate = await advocateWithAccount(brand.brandId, shop, '8501');
    await referredOrder(brand.headers, advocate.code);
    await issuePass(brand.brandId);
    const [failed] = await issuesOf(context.app.db, brand.brandId);
    expect(failed).toMatchObject({ status: 'failed', method: 'store_credit', last_error: expect.stringContaining('Grant the app the write_store_credit_account_transactions, read_store_credit_accounts, read_customers scopes') });
    expect(failed!.last_error).not.toContain('write_discounts scope');
    expect(creditsOf(shop, 'gid://shopify/Customer/8501')).toEqual([]);
    const codes = await referrals(context.app, ['shopify', 'codes', '--brand', brand.brandId, '--json']);
    expect(JSON.parse(codes.stdout).reward_codes).toMatchObject({ failed: 1, failures: [{ last_error: expect.stringContaining('write_store_credit_account_transactions') }] });

    // A public app installed with the scopes of old: status and the dashboard name what store credit lacks.
    const installed = await installApp(context.app, context.fake);
    await updateBrand(context.app.db, installed.brandId, { reward_fulfilment: 'store_credit' });
    const status = await referrals(context.app, ['shopify', 'status', '--brand', installed.brandId, '--json']);
    expect(JSON.parse(status.stdout).actions).toEqual(
      expect.arrayContaining([expect.stringContaining('The app lacks the write_store_credit_account_transactions, read_store_credit_accounts, read_customers scopes, so rewards cannot be added to advocates\' store credit')]),
    );
    const agent = await signedInAgent(context.app.app, context.app.db, installed.brandId);
    const page = await agent.get('/dashboard/connections');
    expect(page.text).toContain('write_store_credit_account_transactions, read_store_credit_accounts, read_customers scopes');
    await updateBrand(context.app.db, installed.brandId, { reward_fulfilment: 'coupon' });
    const coupon = await referrals(context.app, ['shopify', 'status', '--brand', installed.brandId, '--json']);
    expect(JSON.parse(coupon.stdout).actions.join('\n')).not.toContain('store credit');
  });
});

describe('the reward_issued email of store credit', () => {
  const { sendDue, receivedBy } = captureMail(() => context.app.db);

  it('says the amount was added to their store credit and is used at checkout when signed in; a code that stands in for it says why (German)', async () => {
    const { brand, shop } = await creditBrand(STORE_CREDIT_SCOPES, { name: 'Credit Shop', email_reward_approved: false });
    const advocate = await advocateWithAccount(brand.brandId, shop, '8601');
    await referredOrder(brand.headers, advocate.code);
    await issuePass(brand.brandId);
    await sendDue(brand.brandId);
    const [mail] = receivedBy(advocate.email);
    expect(mail!.subject).toBe('Your $10.00 reward for Credit Shop');
    expect(mail!.text).toContain('$10.00 was added to your store credit at Credit Shop; it is used at checkout when you are signed in.');
    expect(mail!.text).not.toContain('Enter the code');

    const german = await creditBrand(STORE_CREDIT_SCOPES, { name: 'Laden', language: 'de', email_reward_approved: false });
    const other = await givenAdvocate(context.app.db, german.brand.brandId);
    await referredOrder(german.brand.headers, other.code);
    await issuePass(german.brand.brandId);
    await sendDue(german.brand.brandId);
    const [issue] = await issuesOf(context.app.db, german.brand.brandId);
    const [code] = receivedBy(other.email);
    expect(code!.text).toContain(`Sie haben noch kein Kundenkonto bei Laden, daher erhalten Sie Ihre Prämie als Code. Geben Sie an der Kasse den Code ${issue!.code} ein.`);
  });
});

import type { Knex } from 'knex';
import { adminApiForBrand } from '../../connectors/shopify/admin-api';
import { issueRewardCodes } from '../../connectors/shopify/reward-code-worker';
import { givenAdvocate, uniqueOrderId } from '../helpers/fixtures';
import { TEST_SECRET } from '../helpers/test-app';
import { connectedBrand as connectedShop, referrals, setUpShopifyTests } from './shopify-test-kit';

const context = setUpShopifyTests();

/** What store credit needs of the shop, besides the orders and the codes of a fallback. */
const STORE_CREDIT_SCOPES = ['read_orders', 'write_discounts', 'write_store_credit_account_transactions', 'read_store_credit_accounts', 'read_customers'];

/** A store_credit brand connected to a fresh shop, rewards of 10.00 approved at once. */
async function creditBrand() {
  const connected = await connectedShop(context, { reward_type: 'fixed', reward_value: 10, reward_hold_days: 0 }, STORE_CREDIT_SCOPES);
  const chosen = await context.app.http.patch('/api/v1/brand').set(connected.brand.headers).send({ reward_fulfilment: 'store_credit' });
  expect(chosen.body.data.reward_fulfilment).toBe('store_credit');
  return connected;
}

/** An advocate who joined on the app proxy page signed in as the shop's customer `customerId`. */
async function advocateWithAccount(brandId: string, shop: string, customerId: string) {
  const advocate = await givenAdvocate(context.app.db, brandId);
  context.fake.customers.set(shop, [...(context.fake.customers.get(shop) ?? []), { id: `gid://shopify/Customer/${customerId}`, email: `someone-${customerId}@debit.example` }]);
  await context.app.db('shopify_storefront_customers').insert({ brand_id: brandId, shop_domain: shop, customer_id: customerId, advocate_id: advocate.advocateId });
  return advocate;
}

/** A friend's order of 80.00 referred by the advocate's code, through the REST API. Returns its order id. */
async function referredOrder(headers: Record<string, string>, code: string): Promise<string> {
  const orderId = uniqueOrderId();
  const order = await context.app.http.post('/api/v1/track/conversion').set(headers).send({ email: `friend-${orderId}@debit.example`, order_id: orderId, order_value: 80, referral_code: code });
  expect(order.status).toBe(201);
  return orderId;
}

async function refundInFull(headers: Record<string, string>, orderId: string) {
  const refund = await context.app.http.post('/api/v1/track/refund').set(headers).send({ order_id: orderId, refund_amount: 80, is_full_refund: true });
  expect(refund.status).toBe(200);
}

/** One pass of the reward worker for one brand. */
const pass = (brandId: string) => issueRewardCodes(context.app.db, { brandId, apiFor: (id) => adminApiForBrand(context.app.db, id, { encryptionSecret: TEST_SECRET, appConfig: null }) });

const debitsOf = (db: Knex, brandId: string) => db('reward_credit_debits').where({ brand_id: brandId }).orderBy('debit_id');
const accountOf = (shop: string, customerId: string) => (context.fake.storeCreditAccounts.get(shop) ?? []).find((account) => account.owner === `gid://shopify/Customer/${customerId}`)!;
const transactionsOf = (shop: string, customerId: string, kind: 'credit' | 'debit') => accountOf(shop, customerId).transactions.filter((transaction) => transaction.kind === kind);
const balanceOf = async (headers: Record<string, string>, advocateId: number) => (await context.app.http.get(`/api/v1/advocates/${advocateId}/balance`).set(headers)).body.data;

/** The advocate's ledger, entry by entry: kind and amount. */
async function ledgerOf(db: Knex, brandId: string, advocateId: number): Promise<Array<{ kind: string; amount: string }>> {
  return db('reward_ledger').where({ brand_id: brandId, advocate_id: advocateId }).orderBy('entry_id').select('kind', 'amount');
}

/** A brand whose advocate (customer `customerId`) was credited 10.00 for one referred order. */
async function credited(customerId: string) {
  const { brand, shop } = await creditBrand();
  const advocate = await advocateWithAccount(brand.brandId, shop, customerId);
  const orderId = await referredOrder(brand.headers, advocate.code);
  expect(await pass(brand.brandId)).toBe(1);
  expect(transactionsOf(shop, customerId, 'credit')).toHaveLength(1);
  return { brand, shop, advocate, orderId };
}

describe('a refund of the referred order takes the store credit back', () => {
  it('credited 10.00, the order refunded in full: the worker debits 10.00 from the account, nothing owed, the ledger exact; the email said 10.00 owed while the debit was to come', async () => {
    const { brand, shop, advocate, orderId } = await credited('9001');
    const { db } = context.app;
    await refundInFull(brand.headers, orderId);
    const [issue] = await db('reward_issues').where({ brand_id: brand.brandId });
    expect(await debitsOf(db, brand.brandId)).toMatchObject([{ issue_id: issue!.issue_id, amount: '10.00', currency: 'USD', status: 'pending', debited: null, sent_at: null }]);
    // Until the debit is done the money is owed, and the advocate's email says so.
    const [reversedMail] = await db('mail_messages').where({ brand_id: brand.brandId, template: 'reward_reversed' });
    expect(reversedMail.data).toMatchObject({ amount: '10.00', owed: '10.00' });
    expect(await balanceOf(brand.headers, advocate.advocateId)).toMatchObject({ issued: 10, owed: 10 });

    expect(await pass(brand.brandId)).toBe(1);
    const [debit] = transactionsOf(shop, '9001', 'debit');
    expect(debit).toMatchObject({ amount: { amount: '-10.00', currencyCode: 'USD' } });
    expect(accountOf(shop, '9001').balance).toBe(0);
    expect(await debitsOf(db, brand.brandId)).toMatchObject([{ status: 'done', debited: '10.00', platform_id: debit!.id, attempts: 1, last_error: null }]);
    expect(await ledgerOf(db, brand.brandId, advocate.advocateId)).toEqual([
      { kind: 'credit', amount: '10.00' },
      { kind: 'issued', amount: '-10.00' },
      { kind: 'reversal', amount: '-10.00' },
      { kind: 'credit_debit', amount: '10.00' },
    ]);
    expect(await balanceOf(brand.headers, advocate.advocateId)).toMatchObject({ credited: 10, reversed: 10, issued: 0, balance: 0, payable: 0, owed: 0 });
    expect(await db('reward_issues').where({ brand_id: brand.brandId })).toHaveLength(1);
    expect(await pass(brand.brandId)).toBe(0);
    expect(context.fake.graphqlCalls(shop, 'DebitReward')).toHaveLength(1);
  });

  it('the advocate spent 6.00 of the 10.00 first: 4.00 is debited, 6.00 stays owed, and the next 10.00 reward credits only 4.00', async () => {
    const { brand, shop, advocate, orderId } = await credited('9101');
    const { db } = context.app;
    // Spent at checkout: the account holds 4.00.
    accountOf(shop, '9101').balance = 400;
    await refundInFull(brand.headers, orderId);
    expect(await pass(brand.brandId)).toBe(1);
    expect(transactionsOf(shop, '9101', 'debit').map((debit) => debit.amount.amount)).toEqual(['-4.00']);
    expect(await debitsOf(db, brand.brandId)).toMatchObject([{ amount: '10.00', status: 'done', debited: '4.00' }]);
    expect(await balanceOf(brand.headers, advocate.advocateId)).toMatchObject({ issued: 6, balance: -6, owed: 6 });

    await referredOrder(brand.headers, advocate.code);
    const [, next] = await db('reward_issues').where({ brand_id: brand.brandId }).orderBy('issue_id');
    expect(next).toMatchObject({ amount: '4.00', method: 'store_credit', status: 'pending' });
    expect(await pass(brand.brandId)).toBe(1);
    expect(transactionsOf(shop, '9101', 'credit').map((credit) => credit.amount.amount)).toEqual(['10.00', '4.00']);
    expect(await balanceOf(brand.headers, advocate.advocateId)).toMatchObject({ credited: 20, reversed: 10, issued: 10, balance: 0, owed: 0 });
  });

  it('an account that holds nothing any more is debited nothing: the debit is done at 0.00 and the 10.00 stays owed', async () => {
    const { brand, shop, advocate, orderId } = await credited('9201');
    accountOf(shop, '9201').balance = 0;
    await refundInFull(brand.headers, orderId);
    expect(await pass(brand.brandId)).toBe(1);
    expect(context.fake.graphqlCalls(shop, 'DebitReward')).toEqual([]);
    expect(await debitsOf(context.app.db, brand.brandId)).toMatchObject([{ status: 'done', debited: '0.00', platform_id: null }]);
    expect(await balanceOf(brand.headers, advocate.advocateId)).toMatchObject({ owed: 10 });
  });

  it("a restart between Shopify's answer and the commit leaves exactly one debit: the next pass finds the debit it sent and records it", async () => {
    const { brand, shop, advocate, orderId } = await credited('9301');
    const { db } = context.app;
    await refundInFull(brand.headers, orderId);
    const trigger = `fail_debit_${brand.brandId.replace(/-/g, '')}`;
    await db.raw(`CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.status = 'done' AND NEW.brand_id = '${brand.brandId}' THEN RAISE EXCEPTION 'killed before the commit'; END IF; RETURN NEW; END $$`);
    await db.raw(`CREATE TRIGGER ${trigger} BEFORE UPDATE ON reward_credit_debits FOR EACH ROW EXECUTE FUNCTION ${trigger}()`);
    try {
      await pass(brand.brandId);
    } finally {
      await db.raw(`DROP TRIGGER ${trigger} ON reward_credit_debits`);
      await db.raw(`DROP FUNCTION ${trigger}()`);
    }
    expect(await debitsOf(db, brand.brandId)).toMatchObject([{ status: 'failed', attempts: 1, sent_at: expect.any(Date), sent_amount: '10.00', last_error: expect.stringContaining('killed before the commit') }]);
    expect(transactionsOf(shop, '9301', 'debit')).toHaveLength(1);
    expect(await ledgerOf(db, brand.brandId, advocate.advocateId)).not.toContainEqual(expect.objectContaining({ kind: 'credit_debit' }));

    await db('reward_credit_debits').where({ brand_id: brand.brandId }).update({ next_attempt_at: db.fn.now() });
    expect(await pass(brand.brandId)).toBe(1);
    const debits = transactionsOf(shop, '9301', 'debit');
    expect(debits).toHaveLength(1);
    expect(context.fake.graphqlCalls(shop, 'DebitReward')).toHaveLength(1);
    expect(await debitsOf(db, brand.brandId)).toMatchObject([{ status: 'done', debited: '10.00', platform_id: debits[0]!.id, attempts: 2 }]);
    expect((await ledgerOf(db, brand.brandId, advocate.advocateId)).filter((entry) => entry.kind === 'credit_debit')).toEqual([{ kind: 'credit_debit', amount: '10.00' }]);
    expect(await balanceOf(brand.headers, advocate.advocateId)).toMatchObject({ owed: 0, issued: 0 });
  });

  it('a debit Shopify refuses (the write scope withdrawn) fails with the reason and the scopes to grant, and is tried again until it is made', async () => {
    const { brand, shop, advocate, orderId } = await credited('9401');
    const { db } = context.app;
    context.fake.scopes.set(shop, STORE_CREDIT_SCOPES.filter((scope) => scope !== 'write_store_credit_account_transactions'));
    await refundInFull(brand.headers, orderId);
    expect(await pass(brand.brandId)).toBe(1);
    const [failed] = await debitsOf(db, brand.brandId);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, debited: null, last_error: expect.stringContaining('Access denied') });
    expect(failed!.last_error).toContain('Grant the app the write_store_credit_account_transactions, read_store_credit_accounts, read_customers scopes');
    expect(new Date(failed!.next_attempt_at).getTime()).toBeGreaterThan(Date.now());
    expect(transactionsOf(shop, '9401', 'debit')).toEqual([]);
    // The operator sees it, with Shopify's reason, in `shopify codes`.
    const status = await referrals(context.app, ['shopify', 'codes', '--brand', brand.brandId, '--json']);
    expect(JSON.parse(status.stdout).reward_codes.credit_debits).toMatchObject({ pending: 0, done: 0, failed: 1, failures: [{ amount: '10.00', attempts: 1, last_error: expect.stringContaining('write_store_credit_account_transactions') }] });
    // Not due before its backoff.
    expect(await pass(brand.brandId)).toBe(0);
    expect(await balanceOf(brand.headers, advocate.advocateId)).toMatchObject({ owed: 10 });

    context.fake.scopes.set(shop, STORE_CREDIT_SCOPES);
    await db('reward_credit_debits').where({ brand_id: brand.brandId }).update({ next_attempt_at: db.fn.now() });
    expect(await pass(brand.brandId)).toBe(1);
    expect(transactionsOf(shop, '9401', 'debit')).toHaveLength(1);
    expect(await debitsOf(db, brand.brandId)).toMatchObject([{ status: 'done', debited: '10.00', attempts: 2, last_error: null }]);
    expect(await balanceOf(brand.headers, advocate.advocateId)).toMatchObject({ owed: 0 });
  });

  it('two refunds of two referred orders each ask for what they left owing, the newest credit first, less what is asked already', async () => {
    const { brand, shop } = await creditBrand();
    const { db } = context.app;
    const advocate = await advocateWithAccount(brand.brandId, shop, '9501');
    const first = await referredOrder(brand.headers, advocate.code);
    const second = await referredOrder(brand.headers, advocate.code);
    expect(await pass(brand.brandId)).toBe(2);
    await refundInFull(brand.headers, first);
    const half = await context.app.http.post('/api/v1/track/refund').set(brand.headers).send({ order_id: second, refund_amount: 40, is_full_refund: false });
    expect(half.status).toBe(200);
    // The second refund owes 15.00 in all, 10.00 of it asked of the newest credit already: 5.00 more, of the older one.
    const issues = await db('reward_issues').where({ brand_id: brand.brandId }).orderBy('issue_id');
    expect(await debitsOf(db, brand.brandId)).toMatchObject([
      { issue_id: issues[1]!.issue_id, amount: '10.00', status: 'pending' },
      { issue_id: issues[0]!.issue_id, amount: '5.00', status: 'pending' },
    ]);
    expect(await pass(brand.brandId)).toBe(2);
    expect(accountOf(shop, '9501').balance).toBe(500);
    expect(await balanceOf(brand.headers, advocate.advocateId)).toMatchObject({ credited: 20, reversed: 15, issued: 5, owed: 0, balance: 0 });
  });
});

import { getBrand } from '../../core/brands/brand';
import { inTransaction } from '../../core/db/transaction';
import { markPaid } from '../../core/payouts/payouts';
import { approveDueRewards } from '../../core/rewards/reward-transitions';
import { type TestBrand, givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';
import { expectMetrics, metric, signedInAgent } from './dashboard-helpers';

// The dashboard's reports in the brand's currency (orders in another one at their stored rate,
// docs/merchants/dashboard.md "Currencies") and the reward lifecycle's figures.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

const DAY_MS = 86_400_000;

async function order(brand: TestBrand, body: Record<string, unknown>): Promise<{ orderId: string; conversionId: number }> {
  const orderId = uniqueOrderId();
  const response = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: `buyer-${orderId}@example.com`, order_id: orderId, ...body });
  expect(response.status).toBe(201);
  return { orderId, conversionId: response.body.data.id };
}

/** The cells of a page's table rows, one string per row, tab-separated (as a browser reads them). */
function tableRows(html: string): string[] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)![1]!;
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) => cell[1]!.replace(/<[^>]+>/g, '').trim()).join('\t'),
  );
}

/** The header cells of a page's first table. */
const tableHeader = (html: string) => [.../<thead>([\s\S]*?)<\/thead>/.exec(html)![1]!.matchAll(/<th[^>]*>([^<]*)<\/th>/g)].map((cell) => cell[1]);

describe('a USD brand with an order in EUR', () => {
  it('counts the EUR order at its stored rate 1.0825, exactly, on the overview, per day, in the advocates table, by product and in the CSV', async () => {
    const brand = await givenBrand(t.db, { currency: 'USD', reward_type: 'percentage', reward_value: 10, reward_hold_days: 0, fraud_velocity: false });
    const advocate = await givenAdvocate(t.db, brand.brandId, { first_name: 'Eva', email: 'eva@example.com' });
    // 99.99 EUR × 1.0825 = 108.239175 → 108.24 USD; its reward 10.82 USD (docs/merchants/currencies.md).
    const eur = await order(brand, {
      order_value: 99.99, currency: 'EUR', exchange_rate: '1.0825', referral_code: advocate.code,
      products: [{ title: 'Rain Jacket', qty: 1, price: 99.99, sku: 'JKT-1' }],
    });
    await order(brand, { order_value: 50, referral_code: advocate.code, products: [{ title: 'Rain Jacket', qty: 1, price: 50, sku: 'JKT-1' }] });
    // 20 EUR refunded: 21.65 USD; the reward loses 10.82 × 20 / 99.99 = 2.164 → 2.16 USD.
    const refund = await t.http.post('/api/v1/track/refund').set(brand.headers).send({ order_id: eur.orderId, refund_amount: 20, is_full_refund: false, refund_id: 'eur-1' });
    expect(refund.status).toBe(200);

    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const page = await agent.get('/dashboard?period=7');
    expect(page.status).toBe(200);
    expectMetrics(page.text, {
      revenue: '158.24 USD',
      refunded: '21.65 USD',
      'refund-rate': '13.68 %',
      'rewards-earned': '15.82 USD',
      'rewards-approved': '15.82 USD',
    });
    expect(tableHeader(page.text)).toEqual(['Day', 'Conversions', 'Revenue (USD)', 'Refunded (USD)']);
    const today = new Date().toISOString().slice(0, 10);
    expect(tableRows(page.text)[0]).toBe(`${today}\t2\t158.24\t21.65`);

    const csv = await agent.get('/dashboard?period=7&format=csv');
    expect(csv.text.split('\r\n')[0]).toBe('day,conversions,revenue,refunded,currency');
    expect(csv.text).toContain(`${today},2,158.24,21.65,USD\r\n`);

    const advocates = await agent.get('/dashboard/advocates?period=7');
    expect(tableRows(advocates.text)).toEqual([`Eva\teva@example.com\t${advocate.code}\t2\t158.24\t13.66\t0.00\t0.00`]);

    const products = await agent.get('/dashboard/products?period=7');
    expect(tableRows(products.text)).toEqual(['JKT-1\tJKT-1\tRain Jacket\t2\t2\t158.24']);
    expect((await agent.get('/dashboard/products?period=7&format=csv')).text).toBe('product,sku,names,orders,quantity,revenue,currency\r\nJKT-1,JKT-1,Rain Jacket,2,2,158.24,USD\r\n');

    // The activity feed shows each order and refund in the order's own currency.
    const activity = await agent.get('/dashboard/activity?period=7&kind=conversion&kind=refund');
    expect(tableRows(activity.text).map((row) => row.split('\t').slice(1).join(' | '))).toEqual([
      `Refund | ${advocate.code} | buyer-${eur.orderId}@example.com | ${eur.orderId} | 20.00 EUR | partly refunded`,
      expect.stringMatching(/^Referred order \| .* \| 50\.00 USD \| paid$/),
      `Referred order | ${advocate.code} | buyer-${eur.orderId}@example.com | ${eur.orderId} | 99.99 EUR | partly refunded`,
    ]);
    expect((await agent.get('/dashboard/activity?period=7&kind=refund&format=csv')).text).toMatch(/^at,kind,id,code,email,order_id,amount,currency,status_or_channel\r\n[^,]+,refund,\d+,\w+,[^,]+,[^,]+,20\.00,EUR,partial_refund\r\n$/);

    // The advocate's history names the order's own currency next to its value.
    const history = await agent.get(`/dashboard/advocates/${advocate.advocateId}`);
    expect(tableRows(history.text)).toContain(`${tableRows(history.text)[0]!.split('\t')[0]}\tRefund after approval\t-2.16\tapproved\t${eur.orderId}\t99.99 EUR\tpartly refunded`);
  });

  it('stores a closed day converted (exact numeric), and shows the same figures from the stored day', async () => {
    const brand = await givenBrand(t.db, { currency: 'USD', reward_type: 'percentage', reward_value: 10, reward_hold_days: 0, fraud_velocity: false });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const eur = await order(brand, { order_value: 99.99, currency: 'EUR', exchange_rate: '1.0825', referral_code: advocate.code });
    const day = new Date(Date.now() - 3 * DAY_MS);
    await t.db('conversions').where({ brand_id: brand.brandId, conversion_id: eur.conversionId }).update({ created_at: day });
    await t.db('reward_ledger').where({ brand_id: brand.brandId }).update({ created_at: day });

    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const first = await agent.get('/dashboard?period=7');
    expect(metric(first.text, 'revenue')).toBe('108.24 USD');
    const stored = await t.db('report_days').where({ brand_id: brand.brandId }).whereRaw('day = CAST(? AS date)', [day.toISOString().slice(0, 10)]).first();
    expect(stored).toMatchObject({ conversions: 1, revenue: '108.24', credits: '10.82', approvals: '10.82', voids: '0', payouts: '0' });
    const again = await agent.get('/dashboard?period=7');
    expect([metric(again.text, 'revenue'), metric(again.text, 'rewards-earned')]).toEqual(['108.24 USD', '10.82 USD']);
  });
});

describe('brands in currencies without cents', () => {
  it('shows a JPY brand in whole yen, with thousands separators, in every figure and table', async () => {
    const brand = await givenBrand(t.db, { currency: 'JPY', reward_type: 'percentage', reward_value: 10, reward_hold_days: 0, fraud_velocity: false });
    const advocate = await givenAdvocate(t.db, brand.brandId, { first_name: 'Yui', email: 'yui@example.jp' });
    await order(brand, { order_value: 1500, referral_code: advocate.code, products: [{ title: 'Tenugui', qty: 3, price: 500 }] });
    await order(brand, { order_value: 999, referral_code: advocate.code });

    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const page = await agent.get('/dashboard?period=30');
    expectMetrics(page.text, {
      revenue: '2,499 JPY',
      refunded: '0 JPY',
      // 150 + 99.9 → 100 yen.
      'rewards-earned': '250 JPY',
      'rewards-held': '0 JPY',
    });
    expect(page.text).toContain('Amounts in JPY');
    expect(tableRows((await agent.get('/dashboard/advocates?period=30')).text)).toEqual([`Yui\tyui@example.jp\t${advocate.code}\t2\t2,499\t250\t0\t0`]);
    expect(tableRows((await agent.get('/dashboard/products?period=30')).text)).toEqual(['Tenugui\t\tTenugui\t1\t3\t1,500']);
    const advocatePage = await agent.get(`/dashboard/advocates/${advocate.advocateId}`);
    expect(metric(advocatePage.text, 'balance')).toBe('250 JPY');
  });

  it('shows a KWD brand with three decimals: 10 % of 12.345 KWD is 1.235 KWD, held', async () => {
    const brand = await givenBrand(t.db, { currency: 'KWD', reward_type: 'percentage', reward_value: 10, fraud_velocity: false });
    const advocate = await givenAdvocate(t.db, brand.brandId, { first_name: 'Kai', email: 'kai@example.kw' });
    await order(brand, { order_value: 12.345, referral_code: advocate.code });

    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const page = await agent.get('/dashboard?period=7');
    expectMetrics(page.text, {
      revenue: '12.345 KWD',
      'rewards-earned': '1.235 KWD',
      'rewards-approved': '0.000 KWD',
      'rewards-held': '1.235 KWD',
      'rewards-held-count': '1',
    });
    expect(tableRows((await agent.get('/dashboard/advocates?period=7')).text)).toEqual([`Kai\tkai@example.kw\t${advocate.code}\t1\t12.345\t0.000\t1.235\t0.000`]);
    const csv = await agent.get('/dashboard/advocates?period=7&format=csv');
    expect(csv.text).toBe(`advocate_id,first_name,last_name,email,codes,conversions,revenue,balance,pending,owed,currency\r\n${advocate.advocateId},Kai,,kai@example.kw,${advocate.code},1,12.345,0.000,1.235,0.000,KWD\r\n`);
  });
});

describe('the reward lifecycle on the overview, the advocates table and an advocate\'s history', () => {
  it('shows rewards held until the hold job approves them, then approved, voided and paid out', async () => {
    const brand = await givenBrand(t.db, { currency: 'USD', reward_type: 'percentage', reward_value: 10, fraud_velocity: false });
    const advocate = await givenAdvocate(t.db, brand.brandId, { first_name: 'Hal', email: 'hal@example.com' });
    const first = await order(brand, { order_value: 100, referral_code: advocate.code });
    const second = await order(brand, { order_value: 50, referral_code: advocate.code });
    const rewardOf = async (conversionId: number) => Number((await t.db('rewards').where({ brand_id: brand.brandId, conversion_id: conversionId }).first()).reward_id);

    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const figures = async () => {
      const page = await agent.get('/dashboard?period=7');
      return ['rewards-earned', 'rewards-approved', 'rewards-paid', 'rewards-voided', 'rewards-held', 'rewards-held-count'].map((name) => metric(page.text, name));
    };
    expect(await figures()).toEqual(['15.00 USD', '0.00 USD', '0.00 USD', '0.00 USD', '15.00 USD', '2']);

    // 20 of the second order's 50 refunded during its hold: 2.00 leaves the held reward.
    const refund = await t.http.post('/api/v1/track/refund').set(brand.headers).send({ order_id: second.orderId, refund_amount: 20, is_full_refund: false, refund_id: 'hal-r1' });
    expect(refund.status).toBe(200);
    expect(await figures()).toEqual(['15.00 USD', '0.00 USD', '0.00 USD', '0.00 USD', '13.00 USD', '2']);

    // The first reward's hold ends; the approval job approves it (and only it).
    await t.db('rewards').where({ brand_id: brand.brandId, reward_id: await rewardOf(first.conversionId) }).update({ hold_until: t.db.raw(`now() - interval '1 second'`) });
    await approveDueRewards(t.db);
    expect(await figures()).toEqual(['15.00 USD', '10.00 USD', '0.00 USD', '0.00 USD', '3.00 USD', '1']);
    expect(tableRows((await agent.get('/dashboard/advocates?period=7')).text)).toEqual([`Hal\thal@example.com\t${advocate.code}\t2\t150.00\t10.00\t3.00\t0.00`]);

    // The held one is voided; 4.00 of the approved one is paid out.
    const voided = await t.http.post(`/api/v1/rewards/${await rewardOf(second.conversionId)}/void`).set(brand.headers).send({ reason: 'duplicate order' });
    expect(voided.status).toBe(200);
    const record = await getBrand(t.db, brand.brandId);
    await inTransaction(t.db, (trx) => markPaid(trx, record, [{ row: 2, payout_id: 'hal-1', advocate_id: advocate.advocateId, amount: 4 }], 'cli'));
    expect(await figures()).toEqual(['15.00 USD', '10.00 USD', '4.00 USD', '3.00 USD', '0.00 USD', '0']);
    const overview = await agent.get('/dashboard?period=7');
    expect(metric(overview.text, 'rewards-reversed')).toBe('2.00 USD');
    expect(tableRows((await agent.get('/dashboard/advocates?period=7')).text)).toEqual([`Hal\thal@example.com\t${advocate.code}\t2\t150.00\t6.00\t0.00\t0.00`]);

    const history = await agent.get(`/dashboard/advocates/${advocate.advocateId}`);
    expect(['balance', 'pending', 'approved', 'paid', 'voided'].map((name) => metric(history.text, name))).toEqual(['6.00 USD', '0.00 USD', '6.00 USD', '4.00 USD', '3.00 USD']);
    expect(tableHeader(history.text)).toEqual(['When', 'Entry', 'Amount (USD)', 'Reward status', 'Order', 'Order value', 'Order status']);
    // Newest first, without the time column: the entry's name, amount, its reward's status now, the order.
    expect(tableRows(history.text).map((row) => row.split('\t').slice(1, 5).join(' | '))).toEqual([
      'Paid out | -4.00 |  | ',
      `Voided while held | -3.00 | voided | ${second.orderId}`,
      `Approved | 10.00 | approved | ${first.orderId}`,
      `Hold ended | -10.00 | approved | ${first.orderId}`,
      `Refund during hold | -2.00 | voided | ${second.orderId}`,
      `Earned, on hold | 5.00 | voided | ${second.orderId}`,
      `Earned, on hold | 10.00 | approved | ${first.orderId}`,
    ]);
    const csv = await agent.get(`/dashboard/advocates/${advocate.advocateId}?format=csv`);
    expect(csv.text.split('\r\n')[0]).toBe('at,entry,entry_label,amount,currency,reward_status,order_id,order_value,order_currency,order_status');
    expect(csv.text.split('\r\n')[1]).toMatch(/^[^,]+,payout,Paid out,-4\.00,USD,,,,,$/);
  });
});

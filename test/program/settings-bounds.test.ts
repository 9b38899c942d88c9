import { z } from 'zod';
import { brandSettingsSchema, getBrand } from '../../core/brands/brand';
import { runCli } from '../../server/cli/run-cli';
import { csrfTokenOf, settingsFormOf, signedInAgent } from '../dashboard/dashboard-helpers';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp, testConfig } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ publicUrl: 'http://127.0.0.1' });
});

/** Each numeric setting just beyond its bound (issue 39, findings 1 and 6), with the field the refusal names. */
const BEYOND: Array<[Record<string, unknown>, string]> = [
  [{ reward_hold_days: 2147483647 }, 'reward_hold_days'],
  [{ reward_hold_days: 3651 }, 'reward_hold_days'],
  [{ attribution_window_days: 2147483647 }, 'attribution_window_days'],
  [{ attribution_window_days: 3651 }, 'attribution_window_days'],
  [{ fraud_ip_window_days: 3651 }, 'fraud_ip_window_days'],
  [{ reengagement_days: 3651 }, 'reengagement_days'],
  [{ fraud_max_per_advocate_hour: 10001 }, 'fraud_max_per_advocate_hour'],
  [{ fraud_max_per_ip_day: 2147483648 }, 'fraud_max_per_ip_day'],
  [{ reward_type: 'fixed', reward_value: 1e10 }, 'reward_value'],
  [{ referee_discount_type: 'fixed', referee_discount_value: 1e300 }, 'referee_discount_value'],
  [{ referee_min_purchase: 1e12 }, 'referee_min_purchase'],
  [{ referee_discount_cap: 1e300 }, 'referee_discount_cap'],
  [{ referee_min_purchase: 0.00001 }, 'referee_min_purchase'],
  [{ referee_discount_cap: 10.005 }, 'referee_discount_cap'],
  [{ fulfil_min_amount: 1e12 }, 'fulfil_min_amount'],
  [{ fulfil_min_amount: 10.005 }, 'fulfil_min_amount'],
  [{ reward_code_expiry_days: 3651 }, 'reward_code_expiry_days'],
];

describe('a program setting is bounded by what a program means', () => {
  it('PATCH /api/v1/brand {"reward_hold_days": 2147483647} was accepted and then every rewarded conversion answered 400 (timestamp out of range); each setting beyond its bound is now a 400 naming it, stored nowhere', async () => {
    const brand = await givenBrand(t.db, { reward_hold_days: 30 });
    const before = await getBrand(t.db, brand.brandId);
    for (const [body, field] of BEYOND) {
      const refused = await t.http.patch('/api/v1/brand').set(brand.headers).send(body);
      expect([body, refused.status, refused.body.error]).toEqual([body, 400, expect.stringMatching(new RegExp(`^${field}\\b`))]);
    }
    expect(await getBrand(t.db, brand.brandId)).toEqual(before);
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const order = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'friend@bounds.example', order_id: uniqueOrderId(), order_value: 80, referral_code: advocate.code });
    expect(order.status).toBe(201);
  });

  it('the dashboard settings form shows each setting beyond its bound next to its field (referee_min_purchase 1e12 was a 500) and saves nothing', async () => {
    const brand = await givenBrand(t.db);
    const before = await getBrand(t.db, brand.brandId);
    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const page = await agent.get('/dashboard/settings');
    const form = settingsFormOf(page.text);
    for (const [body, field] of BEYOND) {
      const values = Object.fromEntries(Object.entries(body).map(([name, value]) => [name, typeof value === 'number' ? value.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 }) : String(value)]));
      const refused = await agent.post('/dashboard/settings').type('form').send({ ...form, ...values, csrf_token: csrfTokenOf(page.text) });
      expect([body, refused.status]).toEqual([body, 400]);
      expect([body, new RegExp(`id="setting-${field}-error">[^<]*(at most|decimals)`).test(refused.text)]).toEqual([body, true]);
    }
    expect(await getBrand(t.db, brand.brandId)).toEqual(before);
  });

  it('the CLI refuses each setting beyond its bound naming its flag (--attribution-window-days 2147483647 was stored), and changes nothing', async () => {
    const brand = await givenBrand(t.db);
    const before = await getBrand(t.db, brand.brandId);
    const cli = (...argv: string[]) => runCli(argv, { db: t.db, config: testConfig(), isTTY: false, progress: () => undefined });
    for (const [body, field] of BEYOND) {
      const flags = Object.entries(body).flatMap(([name, value]) => [`--${name.replace(/_/g, '-')}`, String(value)]);
      const refused = await cli('brand', 'settings', '--brand', brand.brandId, ...flags);
      expect([body, refused.code, refused.stderr]).toEqual([body, expect.any(Number), expect.stringContaining(`--${field.replace(/_/g, '-')}`)]);
      expect(refused.code).not.toBe(0);
      const created = await cli('brand', 'create', '--name', 'Bounded', '--plan', 'growth', ...flags);
      expect([body, created.code === 0, created.stderr]).toEqual([body, false, expect.stringContaining(`--${field.replace(/_/g, '-')}`)]);
    }
    expect(await getBrand(t.db, brand.brandId)).toEqual(before);
  });
});

/** The most a numeric setting's column holds (integer; numeric(14,4); money_amount): the bound when the schema sets none. */
const COLUMN_MOST = { integer: 2_147_483_647, rate: 9_999_999_999.9999, money: 999_999_999_999.9999 };
const MONEY_SETTINGS = ['referee_min_purchase', 'referee_discount_cap', 'fulfil_min_amount'];

/**
 * Each numeric setting's extremes as the brand schema lets a brand in `currency` store them: empty
 * where it may be, the least and the most it accepts (or its column holds), money in whole minor units.
 */
function extremesIn(currency: 'USD' | 'JPY'): Record<string, unknown[]> {
  const unit = currency === 'USD' ? 100 : 1;
  const extremes: Record<string, unknown[]> = {};
  for (const [name, field] of Object.entries(brandSettingsSchema.shape)) {
    const number = field instanceof z.ZodNullable ? field.unwrap() : field;
    if (!(number instanceof z.ZodNumber)) continue;
    const least = number.safeParse(number.minValue).success ? number.minValue! : number.minValue! + 1;
    const money = MONEY_SETTINGS.includes(name);
    const most = Math.min(number.maxValue!, number.isInt ? COLUMN_MOST.integer : money ? COLUMN_MOST.money : COLUMN_MOST.rate);
    extremes[name] = [...(field instanceof z.ZodNullable ? [null] : []), least, money ? Math.floor(most * unit) / unit : most];
  }
  const { reward_value: reward, referee_discount_value: offer, ...rest } = extremes;
  return {
    ...rest,
    reward: [['fixed', reward![0]], ['percentage', 0], ['percentage', 100], ['fixed', reward![1]]],
    offer: [['fixed', offer![0]], ['free_shipping', 0], ['percentage', 100], ['fixed', offer![1]]],
  };
}

/** A combination of extremes as a PATCH body (the reward and the offer are a type and a value each). */
function asPatch(picked: Record<string, unknown>): Record<string, unknown> {
  const { reward, offer, ...days } = picked as { reward: [string, number]; offer: [string, number] };
  return { ...days, reward_type: reward[0], reward_value: reward[1], referee_discount_type: offer[0], referee_discount_value: offer[1], allow_pending_redemption: true };
}

/** Every setting at its least, every one at its most, then seeded random mixes (the same ones each run). */
function combinations(extremes: Record<string, unknown[]>, mixes: number): Array<Record<string, unknown>> {
  let seed = 39;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const pick = (choose: (values: unknown[]) => unknown) => Object.fromEntries(Object.entries(extremes).map(([name, values]) => [name, choose(values)]));
  return [pick((values) => values[0]), pick((values) => values[values.length - 1]), ...Array.from({ length: mixes }, () => pick((values) => values[Math.floor(random() * values.length)]))];
}

describe('no stored setting makes ingest answer 4xx for a valid order', () => {
  it.each(['USD', 'JPY'] as const)('in %s, at every setting\'s bounds and mixes of them: eligibility 200, claims 201, conversions 201, refunds 200', async (currency) => {
    const brand = await givenBrand(t.db, { plan: 'premier', currency });
    for (const settings of combinations(extremesIn(currency), 6).map(asPatch)) {
      // An advocate with nothing earned is refused a redemption: the program's answer, not a lost order.
      const redemption = settings.reward_value === 0 ? [400, 'the advocate has no reward available to redeem'] : [201, null];
      const patched = await t.http.patch('/api/v1/brand').set(brand.headers).send(settings);
      expect([settings, patched.status, patched.body.error]).toEqual([settings, 200, undefined]);
      const advocate = await givenAdvocate(t.db, brand.brandId);
      const friend = `friend-${uniqueOrderId()}@bounds.example`;
      const orderId = uniqueOrderId();
      const answers: Array<[string, number, unknown]> = [];
      const post = async (path: string, body: object) => {
        const response = await t.http.post(`/api/v1/track/${path}`).set(brand.headers).send(body);
        answers.push([path, response.status, response.body.error ?? null]);
        return response;
      };
      await post('check-eligibility', { referral_code: advocate.code, customer_email: friend });
      const claim = await post('claim', { referral_code: advocate.code, email: friend, raw_value: 100 });
      await post('conversion', { email: friend, order_id: orderId, order_value: 100, referral_code: advocate.code, claim_id: claim.body.data?.claim_id, ip_address: '203.0.113.9' });
      await post('conversion', { email: `other-${friend}`, order_id: uniqueOrderId(), order_value: 100, referral_code: advocate.code, ip_address: '203.0.113.9' });
      await post('refund', { order_id: orderId, refund_amount: 10, is_full_refund: false });
      await post('claim', { referral_code: advocate.code, email: advocate.email, type: 'advocate', raw_value: 60 });
      await post('refund', { order_id: orderId });
      expect([settings, answers]).toEqual([settings, [
        ['check-eligibility', 200, null], ['claim', 201, null], ['conversion', 201, null], ['conversion', 201, null], ['refund', 200, null], ['claim', ...redemption], ['refund', 200, null],
      ]]);
    }
  });
});

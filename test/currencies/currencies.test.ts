import { rewardBalance } from '../../core/ledger/reward-ledger';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { signedHeaders } from '../helpers/signed-convert';
import { type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

type Headers = Record<string, string>;
const conversion = (headers: Headers, body: object) => t.http.post('/api/v1/track/conversion').set(headers).send(body);
const refund = (headers: Headers, body: object) => t.http.post('/api/v1/track/refund').set(headers).send(body);
const claim = (headers: Headers, body: object) => t.http.post('/api/v1/track/claim').set(headers).send(body);

/** A brand in `currency` whose advocates earn 10 % of an order, and one advocate. */
async function givenBrandIn(currency: string, reward: { reward_type: 'percentage' | 'fixed'; reward_value: number } = { reward_type: 'percentage', reward_value: 10 }) {
  // Premier: the plan with claims.
  // Rewards spendable at once (no hold), so balances show what each conversion credited.
  const brand = await givenBrand(t.db, { currency, plan: 'premier', reward_hold_days: 0, ...reward });
  const advocate = await givenAdvocate(t.db, brand.brandId);
  return { brand, advocate };
}

const storedConversion = (brandId: string, orderId: string) => t.db('conversions').where({ brand_id: brandId, order_id: orderId }).first();
const ledger = (brandId: string) => t.db('reward_ledger').where({ brand_id: brandId }).orderBy('entry_id').select('kind', 'amount');

describe('a JPY brand (no decimals)', () => {
  it('records a 1500 yen order and credits a 10 % reward of 150 yen', async () => {
    const { brand, advocate } = await givenBrandIn('JPY');
    const orderId = uniqueOrderId();
    const response = await conversion(brand.headers, { email: 'buyer@example.com', order_id: orderId, order_value: 1500, referral_code: advocate.code });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ order_value: 1500, referrer_reward_paid: 150, currency: 'JPY', exchange_rate: null });
    expect(await storedConversion(brand.brandId, orderId)).toMatchObject({ order_value: '1500', referrer_reward_paid: '150', currency: 'JPY' });
    expect(await rewardBalance(t.db, brand.brandId, advocate.advocateId)).toMatchObject({ currency: 'JPY', balance: 150 });
  });

  it('returns 400 naming order_value for 10.5 yen and stores nothing', async () => {
    const { brand, advocate } = await givenBrandIn('JPY');
    const response = await conversion(brand.headers, { email: 'buyer@example.com', order_id: uniqueOrderId(), order_value: 10.5, referral_code: advocate.code });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, error: 'order_value: must be a whole number of JPY (no decimals)', code: 'invalid_request' });
    expect(await t.db('conversions').where({ brand_id: brand.brandId })).toHaveLength(0);
  });

  it('names the product line whose price has decimals', async () => {
    const { brand, advocate } = await givenBrandIn('JPY');
    const response = await conversion(brand.headers, {
      email: 'buyer@example.com', order_id: uniqueOrderId(), order_value: 1500, referral_code: advocate.code, products: [{ name: 'Tea', price: 1500 }, { name: 'Cup', price: 99.9 }],
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('products.1.price: must be a whole number of JPY (no decimals)');
  });
});

describe('a KWD brand (three decimals)', () => {
  it('stores 12.345 dinars exactly and reverses the reward pro rata to the fils', async () => {
    const { brand, advocate } = await givenBrandIn('KWD');
    const orderId = uniqueOrderId();
    const created = await conversion(brand.headers, { email: 'buyer@example.com', order_id: orderId, order_value: 12.345, referral_code: advocate.code });
    expect(created.status).toBe(201);
    // 10 % of 12.345 = 1.2345 → 1.235 (half up at the fils).
    expect(created.body.data).toMatchObject({ order_value: 12.345, referrer_reward_paid: 1.235, currency: 'KWD' });
    expect(await storedConversion(brand.brandId, orderId)).toMatchObject({ order_value: '12.345', referrer_reward_paid: '1.235' });

    // 1.111 of 12.345 refunded: 1.235 × 1.111 / 12.345 = 0.11114… → 0.111.
    const partial = await refund(brand.headers, { order_id: orderId, refund_amount: 1.111, is_full_refund: false, refund_id: 'kw-1' });
    expect(partial.status).toBe(200);
    expect(partial.body.data).toMatchObject({ refund_amount: 1.111, refunded_total: 1.111, remaining: 11.234, reward_reversed: 0.111, currency: 'KWD' });
    // The rest: all that remains of the reward (1.235 − 0.111).
    const rest = await refund(brand.headers, { order_id: orderId, refund_amount: 11.234, is_full_refund: false, refund_id: 'kw-2' });
    expect(rest.body.data).toMatchObject({ status: 'refunded', refunded_total: 12.345, remaining: 0, reward_reversed: 1.124 });
    expect(await ledger(brand.brandId)).toEqual([
      { kind: 'credit', amount: '1.235' },
      { kind: 'reversal', amount: '-0.111' },
      { kind: 'reversal', amount: '-1.124' },
    ]);
    expect(await rewardBalance(t.db, brand.brandId, advocate.advocateId)).toMatchObject({ currency: 'KWD', credited: 1.235, reversed: 1.235, balance: 0 });
  });

  it('returns 400 naming refund_amount for 1.2345 dinars and stores nothing', async () => {
    const { brand, advocate } = await givenBrandIn('KWD');
    const orderId = uniqueOrderId();
    await conversion(brand.headers, { email: 'buyer@example.com', order_id: orderId, order_value: 12.345, referral_code: advocate.code });
    const response = await refund(brand.headers, { order_id: orderId, refund_amount: 1.2345, is_full_refund: false });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('refund_amount: must be a whole number of KWD minor units (at most 3 decimals)');
    expect(await t.db('refunds').where({ brand_id: brand.brandId })).toHaveLength(0);
    expect((await storedConversion(brand.brandId, orderId)).refunded_total).toBe('0.00');
  });
});

describe('a USD brand receiving a EUR order', () => {
  it('computes the 10 % reward in EUR and credits it in USD at the caller’s rate, exactly, and stores the rate', async () => {
    const { brand, advocate } = await givenBrandIn('USD');
    const orderId = uniqueOrderId();
    const response = await conversion(brand.headers, {
      email: 'buyer@example.com', order_id: orderId, order_value: 99.99, currency: 'eur', exchange_rate: '1.0825', referral_code: advocate.code,
    });
    expect(response.status).toBe(201);
    // 99.99 EUR × 10 % = 9.999 EUR; × 1.0825 = 10.8239175 USD → 10.82 (rounded once, half up).
    expect(response.body.data).toMatchObject({ order_value: 99.99, currency: 'EUR', exchange_rate: '1.0825', referrer_reward_paid: 10.82 });
    expect(await storedConversion(brand.brandId, orderId)).toMatchObject({ order_value: '99.99', currency: 'EUR', exchange_rate: '1.082500000000', referrer_reward_paid: '10.82' });
    expect(await ledger(brand.brandId)).toEqual([{ kind: 'credit', amount: '10.82' }]);
    expect(await rewardBalance(t.db, brand.brandId, advocate.advocateId)).toMatchObject({ currency: 'USD', balance: 10.82 });
  });

  it('rounds half up at the cent: 100 EUR × 10 % × 1.0825 = 10.825 → 10.83 USD', async () => {
    const { brand, advocate } = await givenBrandIn('USD');
    const response = await conversion(brand.headers, {
      email: 'buyer@example.com', order_id: uniqueOrderId(), order_value: 100, currency: 'EUR', exchange_rate: 1.0825, referral_code: advocate.code,
    });
    expect(response.body.data).toMatchObject({ referrer_reward_paid: 10.83, exchange_rate: '1.0825' });
  });

  it('credits a fixed reward as it is, in the brand’s currency', async () => {
    const { brand, advocate } = await givenBrandIn('USD', { reward_type: 'fixed', reward_value: 5 });
    const response = await conversion(brand.headers, {
      email: 'buyer@example.com', order_id: uniqueOrderId(), order_value: 80, currency: 'EUR', exchange_rate: '1.0825', referral_code: advocate.code,
    });
    expect(response.body.data).toMatchObject({ referrer_reward_paid: 5, currency: 'EUR' });
  });

  it('returns 422 naming exchange_rate when the EUR order comes without one, and stores nothing', async () => {
    const { brand, advocate } = await givenBrandIn('USD');
    const response = await conversion(brand.headers, { email: 'buyer@example.com', order_id: uniqueOrderId(), order_value: 100, currency: 'EUR', referral_code: advocate.code });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      success: false,
      error: 'exchange_rate is required: the order is in EUR and the brand\'s currency is USD (send USD per 1 EUR, e.g. "1.0825")',
      code: 'exchange_rate_required',
    });
    expect(await t.db('conversions').where({ brand_id: brand.brandId })).toHaveLength(0);
  });

  it('returns 400 naming exchange_rate when it is not a positive decimal', async () => {
    const { brand, advocate } = await givenBrandIn('USD');
    const huge = await conversion(brand.headers, { email: 'b@example.com', order_id: uniqueOrderId(), order_value: 999999999, currency: 'EUR', exchange_rate: '999999999999', referral_code: advocate.code });
    expect(huge.status).toBe(400);
    expect(huge.body.error).toBe('exchange_rate: 999999999999 makes order_value larger than the largest amount in USD');
    for (const rate of ['0', '-1.1', '1,08', 'abc', '1e3']) {
      const response = await conversion(brand.headers, { email: 'b@example.com', order_id: uniqueOrderId(), order_value: 100, currency: 'EUR', exchange_rate: rate, referral_code: advocate.code });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('exchange_rate: must be a positive decimal such as "1.0825" (at most 12 decimals)');
    }
  });

  it('refunds the EUR order in EUR, reversing the USD reward pro rata; a refund in USD is 422 naming currency', async () => {
    const { brand, advocate } = await givenBrandIn('USD');
    const orderId = uniqueOrderId();
    await conversion(brand.headers, { email: 'buyer@example.com', order_id: orderId, order_value: 100, currency: 'EUR', exchange_rate: '1.0825', referral_code: advocate.code });

    const mismatch = await refund(brand.headers, { order_id: orderId, refund_amount: 10, is_full_refund: false, currency: 'USD' });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body).toEqual({ success: false, error: 'currency: the refund is in USD but its order is in EUR; refund in EUR', code: 'currency_mismatch' });
    expect(await t.db('refunds').where({ brand_id: brand.brandId })).toHaveLength(0);

    // 10.83 USD credited; 30 of 100 EUR refunded → 10.83 × 0.3 = 3.249 → 3.25 USD.
    const partial = await refund(brand.headers, { order_id: orderId, refund_amount: 30, is_full_refund: false, currency: 'eur' });
    expect(partial.status).toBe(200);
    expect(partial.body.data).toMatchObject({ refund_amount: 30, remaining: 70, reward_reversed: 3.25, currency: 'EUR' });
    expect(await rewardBalance(t.db, brand.brandId, advocate.advocateId)).toMatchObject({ currency: 'USD', balance: 7.58 });
  });
});

describe('currencies in requests', () => {
  it('returns 400 naming currency for a code that is not ISO 4217', async () => {
    const { brand, advocate } = await givenBrandIn('USD');
    for (const currency of ['EURO', 'ZZZ', 'XAU', '']) {
      const response = await conversion(brand.headers, { email: 'b@example.com', order_id: uniqueOrderId(), order_value: 10, currency, referral_code: advocate.code });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('currency: must be an ISO 4217 code such as USD, EUR or JPY');
    }
    const refunded = await refund(brand.headers, { order_id: 'any', refund_amount: 1, is_full_refund: false, currency: 'dollars' });
    expect(refunded.status).toBe(400);
    expect(refunded.body.error).toBe('currency: must be an ISO 4217 code such as USD, EUR or JPY');
  });

  it('takes an order in the brand’s own currency, sent in lower case, without a rate', async () => {
    const { brand, advocate } = await givenBrandIn('USD');
    const orderId = uniqueOrderId();
    const response = await conversion(brand.headers, { email: 'b@example.com', order_id: orderId, order_value: 20, currency: 'usd', referral_code: advocate.code });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ currency: 'USD', exchange_rate: null, referrer_reward_paid: 2 });
  });

  it('records an old client’s order (no currency) in the brand’s currency, USD by default', async () => {
    const brand = await givenBrand(t.db, { reward_type: 'fixed', reward_value: 10, reward_hold_days: 0 });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const orderId = uniqueOrderId();
    const response = await conversion(brand.headers, { email: 'b@example.com', order_id: orderId, order_value: 19.99, referral_code: advocate.code });
    expect(response.body.data).toMatchObject({ order_value: 19.99, currency: 'USD', exchange_rate: null, referrer_reward_paid: 10 });
    expect(await storedConversion(brand.brandId, orderId)).toMatchObject({ order_value: '19.99', referrer_reward_paid: '10.00', currency: 'USD' });
  });

  it('keeps a brand’s balance in its own currency whatever its orders’ currencies', async () => {
    const { brand, advocate } = await givenBrandIn('USD');
    await conversion(brand.headers, { email: 'a@example.com', order_id: uniqueOrderId(), order_value: 50, referral_code: advocate.code });
    await conversion(brand.headers, { email: 'b@example.com', order_id: uniqueOrderId(), order_value: 1000, currency: 'JPY', exchange_rate: '0.0067', referral_code: advocate.code });
    await conversion(brand.headers, { email: 'c@example.com', order_id: uniqueOrderId(), order_value: 40, currency: 'GBP', exchange_rate: '1.27', referral_code: advocate.code });
    // 5.00 USD + 100 JPY × 0.0067 = 0.67 USD + 4 GBP × 1.27 = 5.08 USD.
    expect(await ledger(brand.brandId)).toEqual([
      { kind: 'credit', amount: '5.00' },
      { kind: 'credit', amount: '0.67' },
      { kind: 'credit', amount: '5.08' },
    ]);
    expect(await rewardBalance(t.db, brand.brandId, advocate.advocateId)).toEqual({
      advocate_id: advocate.advocateId, currency: 'USD', credited: 10.75, reversed: 0, redeemed: 0, balance: 10.75, pending: 0, approved: 10.75, paid: 0, issued: 0, voided: 0, payable: 10.75, owed: 0,
    });
  });

  it('takes a claim in the brand’s currency and refuses one in another with 422 naming currency', async () => {
    const { brand, advocate } = await givenBrandIn('KWD');
    const accepted = await claim(brand.headers, { email: 'c1@example.com', referral_code: advocate.code, raw_value: 20.125, claim_value: 18.5, currency: 'kwd' });
    expect(accepted.status).toBe(201);
    expect(accepted.body.data).toMatchObject({ raw_value: 20.125, claim_value: 18.5, discount_applied: 1.625 });

    const refused = await claim(brand.headers, { email: 'c2@example.com', referral_code: advocate.code, raw_value: 20, currency: 'USD' });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ success: false, error: "currency: claims are in the brand's currency (KWD), not USD", code: 'currency_mismatch' });
    const tooFine = await claim(brand.headers, { email: 'c3@example.com', referral_code: advocate.code, raw_value: 20.1255 });
    expect(tooFine.status).toBe(400);
    expect(tooFine.body.error).toBe('raw_value: must be a whole number of KWD minor units (at most 3 decimals)');
    expect(await t.db('claims').where({ brand_id: brand.brandId })).toHaveLength(1);
  });

  it('/convert takes value in the brand’s currency and names `value` when it has too many decimals', async () => {
    const brand = await givenBrand(t.db, { plan: 'starter', currency: 'JPY', referee_discount_type: 'percentage', referee_discount_value: 15, reward_hold_days: 0 });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const send = (body: object) => {
      const raw = JSON.stringify(body);
      return t.http.post('/api/v1/convert').set(signedHeaders(brand.brandId, brand.apiKey, raw)).send(raw);
    };
    const refused = await send({ referral_code: advocate.code, email: 'j1@example.com', value: 999.5 });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('value: must be a whole number of JPY (no decimals)');
    // 15 % of 999 yen = 149.85 → 150.
    const created = await send({ referral_code: advocate.code, email: 'j2@example.com', value: 999 });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ raw_value: 999, discount_applied: 150, claim_value: 849 });
  });

  it('keeps a claim’s refunded_total in the brand’s currency when its order was in another', async () => {
    const { brand, advocate } = await givenBrandIn('USD');
    const claimed = await claim(brand.headers, { email: 'eu@example.com', referral_code: advocate.code, raw_value: 100, claim_value: 100 });
    expect(claimed.status).toBe(201);
    const orderId = uniqueOrderId();
    const converted = await conversion(brand.headers, {
      email: 'eu@example.com', order_id: orderId, order_value: 92, currency: 'EUR', exchange_rate: '1.087', claim_id: claimed.body.data.claim_id, referral_code: advocate.code,
    });
    expect(converted.status).toBe(201);
    const refunded = await refund(brand.headers, { order_id: orderId, refund_amount: 23, is_full_refund: false });
    expect(refunded.body.data).toMatchObject({ refunded_total: 23, currency: 'EUR', claim_updated: true });
    // A quarter of the order: a quarter of the claim's 100.00 USD.
    const stored = await t.db('claims').where({ brand_id: brand.brandId, claim_id: claimed.body.data.claim_id }).first();
    expect(stored).toMatchObject({ status: 'partial_refund', refunded_total: '25.00' });
  });
});

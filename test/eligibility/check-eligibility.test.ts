import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

async function setup(plan: 'starter' | 'growth' | 'premier' = 'starter') {
  const brand = await givenBrand(t.db, { plan, reward_type: 'fixed', reward_value: 5, reward_hold_days: 0 });
  const advocate = await givenAdvocate(t.db, brand.brandId);
  return { brand, advocate };
}

const check = (headers: Record<string, string>, body: unknown) =>
  t.http.post('/api/v1/track/check-eligibility').set(headers).send(body as object);

const convert = (headers: Record<string, string>, body: Record<string, unknown>) =>
  t.http.post('/api/v1/track/conversion').set(headers).send({ order_id: uniqueOrderId(), order_value: 50, ...body });

describe('POST /api/v1/track/check-eligibility', () => {
  it.each(['starter', 'growth', 'premier'] as const)('answers exactly {eligible: true} for a new customer on the %s plan', async (plan) => {
    const { brand, advocate } = await setup(plan);
    const response = await check(brand.headers, { referral_code: advocate.code.toLowerCase(), customer_email: 'new@example.com' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ eligible: true });
  });

  it('answers self_referral when the customer is the advocate', async () => {
    const { brand, advocate } = await setup();
    const response = await check(brand.headers, { referral_code: advocate.code, customer_email: ` ${advocate.email.toUpperCase()} ` });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ eligible: false, error: 'self_referral', message: expect.any(String) });
  });

  it('answers already_redeemed when the customer has a referral conversion at this brand, with any code', async () => {
    const { brand, advocate } = await setup();
    const other = await givenAdvocate(t.db, brand.brandId);
    await convert(brand.headers, { email: 'Repeat@Example.com', referral_code: other.code });
    const response = await check(brand.headers, { referral_code: advocate.code, customer_email: 'repeat@example.com' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ eligible: false, error: 'already_redeemed', message: expect.any(String) });
  });

  it('answers already_redeemed when the customer has a pending referral claim', async () => {
    const { brand, advocate } = await setup('premier');
    await t.http.post('/api/v1/track/claim').set(brand.headers).send({ referral_code: advocate.code, email: 'claimed@example.com' });
    const response = await check(brand.headers, { referral_code: advocate.code, customer_email: 'claimed@example.com' });
    expect(response.body).toMatchObject({ eligible: false, error: 'already_redeemed' });
  });

  it('still answers already_redeemed after a partial refund', async () => {
    const { brand, advocate } = await setup();
    const orderId = uniqueOrderId();
    await convert(brand.headers, { email: 'partial@example.com', referral_code: advocate.code, order_id: orderId });
    await t.http.post('/api/v1/track/refund').set(brand.headers).send({ order_id: orderId, refund_amount: 10, is_full_refund: false });
    const response = await check(brand.headers, { referral_code: advocate.code, customer_email: 'partial@example.com' });
    expect(response.body).toMatchObject({ eligible: false, error: 'already_redeemed' });
  });

  it('is eligible again once the earlier referral order was fully refunded', async () => {
    const { brand, advocate } = await setup();
    const orderId = uniqueOrderId();
    await convert(brand.headers, { email: 'refunded@example.com', referral_code: advocate.code, order_id: orderId });
    const refund = await t.http.post('/api/v1/track/refund').set(brand.headers).send({ order_id: orderId, refund_amount: 50, is_full_refund: true });
    expect(refund.status).toBe(200);
    const response = await check(brand.headers, { referral_code: advocate.code, customer_email: 'refunded@example.com' });
    expect(response.body).toEqual({ eligible: true });
  });

  it("does not count another brand's referrals", async () => {
    const { brand, advocate } = await setup();
    const elsewhere = await setup();
    await convert(elsewhere.brand.headers, { email: 'shared@example.com', referral_code: elsewhere.advocate.code });
    const response = await check(brand.headers, { referral_code: advocate.code, customer_email: 'shared@example.com' });
    expect(response.body).toEqual({ eligible: true });
  });

  describe('type advocate', () => {
    it('answers not_advocate when the email is not the code owner', async () => {
      const { brand, advocate } = await setup();
      const response = await check(brand.headers, { referral_code: advocate.code, customer_email: 'someone@example.com', type: 'advocate' });
      expect(response.body).toEqual({ eligible: false, error: 'not_advocate', message: expect.any(String) });
    });

    it('answers no_reward_available when the advocate has no reward balance', async () => {
      const { brand, advocate } = await setup();
      const response = await check(brand.headers, { referral_code: advocate.code, customer_email: advocate.email, type: 'advocate' });
      expect(response.body).toEqual({ eligible: false, error: 'no_reward_available', message: expect.any(String) });
    });

    it('is eligible when the advocate has a positive reward balance', async () => {
      const { brand, advocate } = await setup();
      await convert(brand.headers, { email: 'friend@example.com', referral_code: advocate.code });
      const response = await check(brand.headers, { referral_code: advocate.code, customer_email: advocate.email, type: 'advocate' });
      expect(response.body).toEqual({ eligible: true });
    });
  });

  it('returns 404 for an unknown referral code', async () => {
    const { brand } = await setup();
    const response = await check(brand.headers, { referral_code: 'NOPE-404', customer_email: 'a@example.com' });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ success: false, error: expect.stringContaining('referral_code'), code: 'not_found' });
  });

  it.each([
    ['referral_code', { customer_email: 'a@example.com' }],
    ['referral_code', { referral_code: 9, customer_email: 'a@example.com' }],
    ['customer_email', { referral_code: 'X' }],
    ['customer_email', { referral_code: 'X', customer_email: 'nope' }],
    ['type', { referral_code: 'X', customer_email: 'a@example.com', type: 'vip' }],
  ])('returns 400 naming %s', async (field, body) => {
    const { brand } = await setup();
    const response = await check(brand.headers, body);
    expect(response.status).toBe(400);
    expect(response.body.success).toBe(false);
    expect(response.body.error).toContain(field);
  });

  it('returns 401 without the API key headers', async () => {
    const response = await t.http.post('/api/v1/track/check-eligibility').send({ referral_code: 'X', customer_email: 'a@example.com' });
    expect(response.status).toBe(401);
  });
});

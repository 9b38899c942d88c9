import { givenAdvocate, givenBrand } from '../helpers/fixtures';
import { signedHeaders } from '../helpers/signed-convert';
import { type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

type Brand = Awaited<ReturnType<typeof givenBrand>>;

async function setup(options: Parameters<typeof givenBrand>[1] = {}) {
  const brand = await givenBrand(t.db, { plan: 'starter', referee_discount_type: 'percentage', referee_discount_value: 15, ...options });
  const advocate = await givenAdvocate(t.db, brand.brandId);
  return { brand, advocate };
}

/** Signs exactly the bytes it sends, as a webhook source does. */
function convert(brand: Brand, body: unknown) {
  const raw = JSON.stringify(body);
  return t.http.post('/api/v1/convert').set(signedHeaders(brand.brandId, brand.apiKey, raw)).send(raw);
}

describe('POST /api/v1/convert (what a validly signed request does)', () => {
  it("creates a pending claim with 201: value is raw_value and the brand's referee discount gives claim_value", async () => {
    const { brand, advocate } = await setup();
    const response = await convert(brand, { referral_code: advocate.code.toLowerCase(), email: 'Zed@Example.com', value: 80, customer_name: 'Zed', metadata: { form: 'typeform' } });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      success: true,
      data: {
        claim_id: expect.any(Number),
        referral_code: advocate.code,
        raw_value: 80,
        claim_value: 68,
        discount_applied: 12,
        created_at: expect.any(String),
      },
    });
    expect(new Date(response.body.data.created_at).toISOString()).toBe(response.body.data.created_at);
    const row = await t.db('claims').where({ brand_id: brand.brandId, claim_id: response.body.data.claim_id }).first();
    expect(row).toMatchObject({ status: 'pending', customer_name: 'Zed', email_normalized: 'zed@example.com', source: 'convert', metadata: { form: 'typeform' } });
  });

  it('defaults value to 0', async () => {
    const { brand, advocate } = await setup({ referee_discount_type: 'fixed', referee_discount_value: 10 });
    const response = await convert(brand, { referral_code: advocate.code, email: 'a@example.com' });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ raw_value: 0, claim_value: 0, discount_applied: 0 });
  });

  it('returns 409 with the existing claim_id for a duplicate submission', async () => {
    const { brand, advocate } = await setup();
    const body = { referral_code: advocate.code, email: 'dup@example.com', value: 20 };
    const first = await convert(brand, body);
    const second = await convert(brand, body);
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ success: false, claim_id: first.body.data.claim_id });
  });

  it('returns 409 with the claim_id of a claim made through /track/claim', async () => {
    const { brand, advocate } = await setup({ plan: 'premier' });
    const claimed = await t.http.post('/api/v1/track/claim').set(brand.headers).send({ referral_code: advocate.code, email: 'both@example.com' });
    const response = await convert(brand, { referral_code: advocate.code, email: 'both@example.com', value: 5 });
    expect(response.status).toBe(409);
    expect(response.body.claim_id).toBe(claimed.body.data.claim_id);
  });

  it('refuses a self-referral with 400 self_referral', async () => {
    const { brand, advocate } = await setup();
    const response = await convert(brand, { referral_code: advocate.code, email: advocate.email, value: 5 });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, error_code: 'self_referral' });
  });

  it('returns 404 for an unknown referral code', async () => {
    const { brand } = await setup();
    const response = await convert(brand, { referral_code: 'NOPE-404', email: 'a@example.com' });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ success: false, error: expect.stringContaining('referral_code'), code: 'not_found' });
  });

  it.each([
    ['referral_code', { email: 'a@example.com' }],
    ['email', { referral_code: 'X' }],
    ['email', { referral_code: 'X', email: 'nope' }],
    ['value', { referral_code: 'X', email: 'a@example.com', value: '19.99' }],
    ['value', { referral_code: 'X', email: 'a@example.com', value: -1 }],
    ['customer_name', { referral_code: 'X', email: 'a@example.com', customer_name: 7 }],
    ['metadata', { referral_code: 'X', email: 'a@example.com', metadata: [1] }],
  ])('returns 400 naming %s', async (field, body) => {
    const { brand } = await setup();
    const response = await convert(brand, body);
    expect(response.status).toBe(400);
    expect(response.body.success).toBe(false);
    expect(response.body.error).toContain(field);
  });
});

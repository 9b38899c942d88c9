import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function setup(attribution_model: 'last_click' | 'first_click' = 'last_click', plan: 'starter' | 'growth' | 'premier' = 'premier') {
  const brand = await givenBrand(t.db, { plan, attribution_model });
  const ann = await givenAdvocate(t.db, brand.brandId, { first_name: 'Ann' });
  const ben = await givenAdvocate(t.db, brand.brandId, { first_name: 'Ben' });
  return { brand, ann, ben };
}

const visit = (headers: Record<string, string>, body: unknown) => t.http.post('/api/v1/track/visit').set(headers).send(body as object);

describe('POST /api/v1/track/visit', () => {
  it('answers 200 with the code to store, the referrer first name and a generated UUID v4 visitor_id', async () => {
    const { brand, ann } = await setup();
    const response = await visit(brand.headers, { referral_code: ann.code.toLowerCase(), landing_page: 'https://shop.example/?ref=x' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: { store_code: true, clear_existing: false, code: ann.code, referrer_first_name: 'Ann', visitor_id: expect.stringMatching(UUID_V4) },
    });
    const row = await t.db('visits').where({ brand_id: brand.brandId, visitor_id: response.body.data.visitor_id }).first();
    expect(row).toMatchObject({ advocate_id: String(ann.advocateId), landing_page: 'https://shop.example/?ref=x' });
  });

  it('keeps a supplied visitor_id', async () => {
    const { brand, ann } = await setup();
    const visitorId = '0b8e2f4c-1d5a-4c3b-8e7f-6a5b4c3d2e1f';
    const response = await visit(brand.headers, { referral_code: ann.code, visitor_id: visitorId });
    expect(response.body.data.visitor_id).toBe(visitorId);
  });

  it('stores the code again without clearing when existing_code is the same code', async () => {
    const { brand, ann } = await setup('first_click');
    const response = await visit(brand.headers, { referral_code: ann.code, existing_code: ann.code.toLowerCase() });
    expect(response.body.data).toMatchObject({ store_code: true, clear_existing: false, code: ann.code });
  });

  it('last_click (the default): stores the new code and clears a different existing one', async () => {
    const { brand, ann, ben } = await setup('last_click');
    const response = await visit(brand.headers, { referral_code: ben.code, existing_code: ann.code });
    expect(response.body.data).toMatchObject({ store_code: true, clear_existing: true, code: ben.code, referrer_first_name: 'Ben' });
  });

  it('first_click: keeps the existing code and does not store the new one', async () => {
    const { brand, ann, ben } = await setup('first_click');
    const response = await visit(brand.headers, { referral_code: ben.code, existing_code: ann.code });
    expect(response.body.data).toMatchObject({ store_code: false, clear_existing: false, code: ann.code, referrer_first_name: 'Ann' });
    const row = await t.db('visits').where({ brand_id: brand.brandId, visitor_id: response.body.data.visitor_id }).first();
    expect(row).toMatchObject({ advocate_id: String(ann.advocateId), clicked_code: ben.code });
  });

  it('first_click: replaces an existing code that is not a code of this brand', async () => {
    const { brand, ben } = await setup('first_click');
    const response = await visit(brand.headers, { referral_code: ben.code, existing_code: 'GONE-CODE' });
    expect(response.body.data).toMatchObject({ store_code: true, clear_existing: true, code: ben.code });
  });

  it('accepts null existing_code and visitor_id, as a device with empty storage sends them', async () => {
    const { brand, ann } = await setup();
    const response = await visit(brand.headers, { referral_code: ann.code, existing_code: null, visitor_id: null });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ store_code: true, clear_existing: false, visitor_id: expect.stringMatching(UUID_V4) });
  });

  it('takes share_channel from utm_source in the alternate form, keeping the utm fields', async () => {
    const { brand, ann } = await setup();
    const response = await visit(brand.headers, { referral_code: ann.code, utm_source: 'sms', utm_medium: 'referral', utm_campaign: 'spring' });
    const row = await t.db('visits').where({ brand_id: brand.brandId, visitor_id: response.body.data.visitor_id }).first();
    expect(row).toMatchObject({ share_channel: 'sms', utm_source: 'sms', utm_medium: 'referral', utm_campaign: 'spring' });
  });

  it('prefers an explicit share_channel over utm_source', async () => {
    const { brand, ann } = await setup();
    const response = await visit(brand.headers, { referral_code: ann.code, share_channel: 'email', utm_source: 'newsletter' });
    const row = await t.db('visits').where({ brand_id: brand.brandId, visitor_id: response.body.data.visitor_id }).first();
    expect(row.share_channel).toBe('email');
  });

  describe('attribution of a later conversion by visitor_id alone', () => {
    const convert = (headers: Record<string, string>, visitorId: string) =>
      t.http.post('/api/v1/track/conversion').set(headers).send({ email: 'buyer@example.com', order_id: uniqueOrderId(), order_value: 40, visitor_id: visitorId });

    it('attributes the order to the visited code', async () => {
      const { brand, ann } = await setup();
      const { body } = await visit(brand.headers, { referral_code: ann.code });
      const response = await convert(brand.headers, body.data.visitor_id);
      expect(response.status).toBe(201);
      expect(response.body.data).toMatchObject({ attributed: true, referral_code: ann.code, advocate_id: ann.advocateId });
    });

    it('last_click: to the newest click', async () => {
      const { brand, ann, ben } = await setup('last_click');
      const first = await visit(brand.headers, { referral_code: ann.code });
      await visit(brand.headers, { referral_code: ben.code, existing_code: ann.code, visitor_id: first.body.data.visitor_id });
      const response = await convert(brand.headers, first.body.data.visitor_id);
      expect(response.body.data).toMatchObject({ referral_code: ben.code, advocate_id: ben.advocateId });
    });

    it('first_click: to the first code the device kept', async () => {
      const { brand, ann, ben } = await setup('first_click');
      const first = await visit(brand.headers, { referral_code: ann.code });
      await visit(brand.headers, { referral_code: ben.code, existing_code: ann.code, visitor_id: first.body.data.visitor_id });
      const response = await convert(brand.headers, first.body.data.visitor_id);
      expect(response.body.data).toMatchObject({ referral_code: ann.code, advocate_id: ann.advocateId });
    });
  });

  it('returns 404 for an unknown referral code, storing nothing', async () => {
    const { brand } = await setup();
    const response = await visit(brand.headers, { referral_code: 'NOPE-404' });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ success: false, error: expect.stringContaining('referral_code'), code: 'not_found' });
    expect(await t.db('visits').where({ brand_id: brand.brandId })).toHaveLength(0);
  });

  it.each([
    ['referral_code', {}],
    ['referral_code', { referral_code: '  ' }],
    ['referral_code', { referral_code: 123 }],
    ['visitor_id', { referral_code: 'X', visitor_id: 'not-a-uuid' }],
    ['visitor_id', { referral_code: 'X', visitor_id: 7 }],
    ['existing_code', { referral_code: 'X', existing_code: 5 }],
    ['share_channel', { referral_code: 'X', share_channel: 'x'.repeat(3000) }],
    ['utm_source', { referral_code: 'X', utm_source: ['sms'] }],
  ])('returns 400 naming %s', async (field, body) => {
    const { brand } = await setup();
    const response = await visit(brand.headers, body);
    expect(response.status).toBe(400);
    expect(response.body.success).toBe(false);
    expect(response.body.error).toContain(field);
  });

  it('returns 401 without the API key headers', async () => {
    const response = await t.http.post('/api/v1/track/visit').send({ referral_code: 'X' });
    expect(response.status).toBe(401);
  });

  it.each(['starter', 'growth'] as const)('returns 403 naming the Premier plan on the %s plan', async (plan) => {
    const { brand, ann } = await setup('last_click', plan);
    const response = await visit(brand.headers, { referral_code: ann.code });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ success: false, error: expect.stringContaining('Premier'), code: 'plan_required' });
    expect(await t.db('visits').where({ brand_id: brand.brandId })).toHaveLength(0);
  });
});

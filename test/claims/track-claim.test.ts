import { rewardBalance } from '../../core/ledger/reward-ledger';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

type BrandOptions = Parameters<typeof givenBrand>[1];

async function setup(options: BrandOptions = {}) {
  const brand = await givenBrand(t.db, { reward_hold_days: 0, plan: 'premier', referee_discount_type: 'percentage', referee_discount_value: 10, ...options });
  const advocate = await givenAdvocate(t.db, brand.brandId, { first_name: 'Ann' });
  return { brand, advocate };
}

const claim = (headers: Record<string, string>, body: unknown) => t.http.post('/api/v1/track/claim').set(headers).send(body as object);

describe('POST /api/v1/track/claim', () => {
  it('creates a pending claim with 201, id and claim_id carrying the same value', async () => {
    const { brand, advocate } = await setup();
    const response = await claim(brand.headers, { referral_code: advocate.code, email: 'bob@example.com', raw_value: 80 });
    expect(response.status).toBe(201);
    expect(response.body.success).toBe(true);
    expect(response.body.data).toMatchObject({
      referral_code: advocate.code,
      status: 'pending',
      raw_value: 80,
      discount_applied: 8,
      claim_value: 72,
    });
    expect(Number.isInteger(response.body.data.id)).toBe(true);
    expect(response.body.data.claim_id).toBe(response.body.data.id);
    const row = await t.db('claims').where({ brand_id: brand.brandId, claim_id: response.body.data.id }).first();
    expect(row).toMatchObject({ status: 'pending', email_normalized: 'bob@example.com', type: 'referral' });
  });

  it('accepts the alternate form: customer_email, customer_name, claim_type, phone and items', async () => {
    const { brand, advocate } = await setup();
    const response = await claim(brand.headers, {
      referral_code: advocate.code.toLowerCase(),
      customer_email: '  Carol@Example.com ',
      customer_name: 'Carol',
      claim_type: 'referral',
      phone: '+15550100',
      items: [{ name: 'Mug', quantity: 2, unit_price: 12.5, sku: 'MUG-1' }],
      raw_value: 25,
      claim_value: 20,
    });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ referral_code: advocate.code, discount_applied: 5, claim_value: 20 });
    const row = await t.db('claims').where({ brand_id: brand.brandId, claim_id: response.body.data.id }).first();
    expect(row).toMatchObject({ customer_name: 'Carol', phone: '+15550100', email_normalized: 'carol@example.com' });
    expect(row.products).toEqual([expect.objectContaining({ name: 'Mug', quantity: 2, price: 12.5, sku: 'MUG-1' })]);
  });

  it('accepts the primary form: name, type, products, coupons_applied and metadata', async () => {
    const { brand, advocate } = await setup();
    const response = await claim(brand.headers, {
      referral_code: advocate.code,
      email: 'dan@example.com',
      name: 'Dan',
      type: 'referral',
      order_id: 'A-1',
      visitor_id: 'c7c3b1de-7d6e-4b43-9d2f-2f6d1c1e4a10',
      products: [{ title: 'Tee', qty: 3, price: 10, size: 'M' }],
      coupons_applied: [{ code: advocate.code, discount_amount: 3 }],
      metadata: { campaign: 'spring' },
    });
    expect(response.status).toBe(201);
    const row = await t.db('claims').where({ brand_id: brand.brandId, claim_id: response.body.data.id }).first();
    expect(row).toMatchObject({ customer_name: 'Dan', order_id: 'A-1', metadata: { campaign: 'spring' } });
    expect(row.products[0]).toMatchObject({ name: 'Tee', quantity: 3, price: 10, attributes: { size: 'M' } });
    expect(row.coupons_applied).toEqual([{ code: advocate.code, discount_amount: 3 }]);
  });

  describe('discount', () => {
    it('is raw_value − claim_value when both are sent', async () => {
      const { brand, advocate } = await setup();
      const response = await claim(brand.headers, { referral_code: advocate.code, email: 'a@example.com', raw_value: 100, claim_value: 87.35 });
      expect(response.body.data).toMatchObject({ raw_value: 100, claim_value: 87.35, discount_applied: 12.65 });
    });

    it('applies a percentage discount_value to raw_value', async () => {
      const { brand, advocate } = await setup();
      const response = await claim(brand.headers, {
        referral_code: advocate.code,
        email: 'a@example.com',
        raw_value: 59.99,
        discount_value: 20,
        discount_type: 'percentage',
      });
      expect(response.body.data).toMatchObject({ raw_value: 59.99, discount_applied: 12, claim_value: 47.99 });
    });

    it('caps a fixed discount_value at raw_value', async () => {
      const { brand, advocate } = await setup();
      const response = await claim(brand.headers, {
        referral_code: advocate.code,
        email: 'a@example.com',
        raw_value: 15,
        discount_value: 25,
        discount_type: 'fixed',
      });
      expect(response.body.data).toMatchObject({ raw_value: 15, discount_applied: 15, claim_value: 0 });
    });

    it("uses the brand's fixed referee discount when none is sent", async () => {
      const { brand, advocate } = await setup({ referee_discount_type: 'fixed', referee_discount_value: 7.5 });
      const response = await claim(brand.headers, { referral_code: advocate.code, email: 'a@example.com', raw_value: 40 });
      expect(response.body.data).toMatchObject({ discount_applied: 7.5, claim_value: 32.5 });
    });

    it("honours the brand's referee minimum purchase and discount cap", async () => {
      const { brand, advocate } = await setup({ referee_discount_value: 20, referee_min_purchase: 50, referee_discount_cap: 15 });
      const below = await claim(brand.headers, { referral_code: advocate.code, email: 'below@example.com', raw_value: 49.99 });
      expect(below.body.data).toMatchObject({ discount_applied: 0, claim_value: 49.99 });
      const capped = await claim(brand.headers, { referral_code: advocate.code, email: 'capped@example.com', raw_value: 200 });
      expect(capped.body.data).toMatchObject({ discount_applied: 15, claim_value: 185 });
    });
  });

  describe('duplicates', () => {
    it('returns 409 with the first claim_id when the same email claims twice within 24 hours', async () => {
      const { brand, advocate } = await setup();
      const first = await claim(brand.headers, { referral_code: advocate.code, email: 'eve@example.com', raw_value: 10 });
      const second = await claim(brand.headers, { referral_code: advocate.code.toLowerCase(), email: ' EVE@example.com', raw_value: 10 });
      expect(first.status).toBe(201);
      expect(second.status).toBe(409);
      expect(second.body).toMatchObject({ success: false, claim_id: first.body.data.claim_id });
      expect(second.body.error).toMatch(/24 hours/);
    });

    it('accepts the same email and code again after 24 hours (then eligibility decides)', async () => {
      const { brand, advocate } = await setup();
      const first = await claim(brand.headers, { referral_code: advocate.code, email: 'old@example.com', raw_value: 10 });
      await t.db('claims')
        .where({ brand_id: brand.brandId, claim_id: first.body.data.claim_id })
        .update({ created_at: t.db.raw(`now() - interval '25 hours'`), status: 'refunded' });
      const again = await claim(brand.headers, { referral_code: advocate.code, email: 'old@example.com', raw_value: 10 });
      expect(again.status).toBe(201);
    });

    it('stores one claim when 20 identical claims arrive at once; the rest get 409 with its claim_id', async () => {
      const { brand, advocate } = await setup();
      const body = { referral_code: advocate.code, email: 'race@example.com', raw_value: 30 };
      const responses = await Promise.all(Array.from({ length: 20 }, () => claim(brand.headers, body)));
      expect(responses.map((response) => response.status).sort()).toEqual([201, ...Array(19).fill(409)]);
      const created = responses.find((response) => response.status === 201)!;
      for (const response of responses.filter((candidate) => candidate.status === 409)) {
        expect(response.body.claim_id).toBe(created.body.data.claim_id);
      }
      expect(await t.db('claims').where({ brand_id: brand.brandId })).toHaveLength(1);
    });
  });

  describe('eligibility', () => {
    it('refuses with 400 self_referral when the customer is the advocate', async () => {
      const { brand, advocate } = await setup();
      const response = await claim(brand.headers, { referral_code: advocate.code, email: advocate.email.toUpperCase() });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ success: false, error_code: 'self_referral' });
      expect(await t.db('claims').where({ brand_id: brand.brandId })).toHaveLength(0);
    });

    it('refuses with 400 already_redeemed when the customer already claimed with another code', async () => {
      const { brand, advocate } = await setup();
      const other = await givenAdvocate(t.db, brand.brandId);
      expect((await claim(brand.headers, { referral_code: advocate.code, email: 'fay@example.com' })).status).toBe(201);
      const response = await claim(brand.headers, { referral_code: other.code, email: 'fay@example.com' });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ success: false, error_code: 'already_redeemed' });
    });

    it('lets an advocate claim their reward (type advocate), redeeming it from the ledger', async () => {
      const { brand, advocate } = await setup({ reward_type: 'fixed', reward_value: 10 });
      await t.http
        .post('/api/v1/track/conversion')
        .set(brand.headers)
        .send({ email: 'buyer@example.com', order_id: uniqueOrderId(), order_value: 50, referral_code: advocate.code });
      const response = await claim(brand.headers, { referral_code: advocate.code, email: advocate.email, type: 'advocate', raw_value: 60 });
      expect(response.status).toBe(201);
      expect(response.body.data).toMatchObject({ discount_applied: 10, claim_value: 50 });
      expect(await rewardBalance(t.db, brand.brandId, advocate.advocateId)).toMatchObject({ redeemed: 10, balance: 0 });
    });

    it('refuses an advocate claim with no_reward_available when the balance is zero', async () => {
      const { brand, advocate } = await setup();
      const response = await claim(brand.headers, { referral_code: advocate.code, email: advocate.email, claim_type: 'advocate' });
      expect(response.status).toBe(400);
      expect(response.body.error_code).toBe('no_reward_available');
    });

    it('refuses an advocate claim with not_advocate when the email is not the advocate', async () => {
      const { brand, advocate } = await setup();
      const response = await claim(brand.headers, { referral_code: advocate.code, email: 'stranger@example.com', type: 'advocate' });
      expect(response.status).toBe(400);
      expect(response.body.error_code).toBe('not_advocate');
    });
  });

  it('returns 404 for an unknown referral code', async () => {
    const { brand } = await setup();
    const response = await claim(brand.headers, { referral_code: 'NOPE-123', email: 'a@example.com' });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ success: false, error: expect.stringMatching(/referral_code/), code: 'not_found' });
  });

  it.each([
    ['referral_code', { email: 'a@example.com' }],
    ['referral_code', { referral_code: '', email: 'a@example.com' }],
    ['email', { referral_code: 'X' }],
    ['email', { referral_code: 'X', email: 'not-an-email' }],
    ['customer_email', { referral_code: 'X', customer_email: 42 }],
    ['raw_value', { referral_code: 'X', email: 'a@example.com', raw_value: '10.00' }],
    ['claim_value', { referral_code: 'X', email: 'a@example.com', claim_value: -1 }],
    ['discount_value', { referral_code: 'X', email: 'a@example.com', discount_value: '5' }],
    ['discount_type', { referral_code: 'X', email: 'a@example.com', discount_type: 'bogus' }],
    ['type', { referral_code: 'X', email: 'a@example.com', type: 'vip' }],
    ['claim_type', { referral_code: 'X', email: 'a@example.com', claim_type: 'vip' }],
    ['products.0.quantity', { referral_code: 'X', email: 'a@example.com', products: [{ name: 'A', quantity: 1.5 }] }],
    ['items.0.name', { referral_code: 'X', email: 'a@example.com', items: [{ quantity: 1 }] }],
    ['coupons_applied.0.code', { referral_code: 'X', email: 'a@example.com', coupons_applied: [{ discount_amount: 1 }] }],
    ['metadata', { referral_code: 'X', email: 'a@example.com', metadata: 'x' }],
  ])('returns 400 naming %s', async (field, body) => {
    const { brand } = await setup();
    const response = await claim(brand.headers, body);
    expect(response.status).toBe(400);
    expect(response.body.success).toBe(false);
    expect(response.body.error).toContain(field);
  });

  it('returns 400 naming claim_value when it exceeds raw_value, storing nothing', async () => {
    const { brand, advocate } = await setup();
    const response = await claim(brand.headers, { referral_code: advocate.code, email: 'a@example.com', raw_value: 10, claim_value: 11 });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain('claim_value');
    expect(await t.db('claims').where({ brand_id: brand.brandId })).toHaveLength(0);
  });

  it('returns 401 without the API key headers', async () => {
    const response = await t.http.post('/api/v1/track/claim').send({ referral_code: 'X', email: 'a@example.com' });
    expect(response.status).toBe(401);
  });

  it.each(['starter', 'growth'] as const)('returns 403 naming the Premier plan on the %s plan', async (plan) => {
    const { brand, advocate } = await setup({ plan });
    const response = await claim(brand.headers, { referral_code: advocate.code, email: 'a@example.com' });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ success: false, error: expect.stringContaining('Premier'), code: 'plan_required' });
    expect(await t.db('claims').where({ brand_id: brand.brandId })).toHaveLength(0);
  });
});

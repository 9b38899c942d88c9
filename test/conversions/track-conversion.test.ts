import { rewardBalance } from '../../core/ledger/reward-ledger';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

async function setup(reward: { reward_type: 'fixed' | 'percentage'; reward_value: number } = { reward_type: 'percentage', reward_value: 10 }) {
  const brand = await givenBrand(t.db, { reward_hold_days: 0, ...reward });
  const advocate = await givenAdvocate(t.db, brand.brandId);
  return { brand, advocate };
}

const post = (headers: Record<string, string>, body: unknown) =>
  t.http.post('/api/v1/track/conversion').set(headers).send(body as object);

describe('POST /api/v1/track/conversion', () => {
  it('records an attributed order with 201 and credits the advocate a percentage reward', async () => {
    const { brand, advocate } = await setup();
    const response = await post(brand.headers, {
      email: 'bob@example.com',
      order_id: '1001',
      order_value: 120,
      referral_code: advocate.code,
    });
    expect(response.status).toBe(201);
    expect(response.body.success).toBe(true);
    expect(response.body.data).toMatchObject({
      status: 'completed',
      order_value: 120,
      order_subtotal: 120,
      discount_applied: 0,
      total_discount: 0,
      claim_id: null,
      attributed: true,
      duplicate: false,
      referrer_reward_paid: 12,
    });
    expect(Number.isInteger(response.body.data.id)).toBe(true);
    expect((await rewardBalance(t.db, brand.brandId, advocate.advocateId)).balance).toBe(12);
  });

  it('matches the referral code case-insensitively', async () => {
    const { brand, advocate } = await setup();
    const response = await post(brand.headers, { email: 'c@example.com', order_id: uniqueOrderId(), order_value: 50, referral_code: advocate.code.toLowerCase() });
    expect(response.status).toBe(201);
    expect(response.body.data.referral_code).toBe(advocate.code);
  });

  it('returns 200 with the same id and duplicate: true when the order_id repeats, crediting once', async () => {
    const { brand, advocate } = await setup({ reward_type: 'fixed', reward_value: 5 });
    const body = { email: 'bob@example.com', order_id: uniqueOrderId(), order_value: 80, referral_code: advocate.code };
    const first = await post(brand.headers, body);
    const second = await post(brand.headers, { ...body, order_value: 999 });
    expect(first.status).toBe(201);
    expect(second.status).toBe(200);
    expect(second.body.data.duplicate).toBe(true);
    expect(second.body.data.id).toBe(first.body.data.id);
    expect(second.body.data.order_value).toBe(80);
    expect((await rewardBalance(t.db, brand.brandId, advocate.advocateId)).balance).toBe(5);
  });

  it('stores exactly one conversion and one ledger credit for 50 concurrent requests with one order_id', async () => {
    const { brand, advocate } = await setup({ reward_type: 'fixed', reward_value: 7.5 });
    const orderId = uniqueOrderId();
    const body = { email: 'race@example.com', order_id: orderId, order_value: 100, referral_code: advocate.code };
    const responses = await Promise.all(Array.from({ length: 50 }, () => post(brand.headers, body)));
    expect(responses.map((response) => response.status).sort()).toEqual([...Array(49).fill(200), 201]);
    const ids = new Set(responses.map((response) => response.body.data.id));
    expect(ids.size).toBe(1);
    const conversions = await t.db('conversions').where({ brand_id: brand.brandId, order_id: orderId });
    expect(conversions).toHaveLength(1);
    const credits = await t.db('reward_ledger').where({ brand_id: brand.brandId, kind: 'credit' });
    expect(credits).toHaveLength(1);
    expect((await rewardBalance(t.db, brand.brandId, advocate.advocateId)).balance).toBe(7.5);
  });

  it('answers 200 attributed: false and stores nothing for an order with no referral', async () => {
    const { brand } = await setup();
    const orderId = uniqueOrderId();
    const response = await post(brand.headers, { email: 'nobody@example.com', order_id: orderId, order_value: 30 });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, data: { attributed: false } });
    expect(await t.db('conversions').where({ brand_id: brand.brandId, order_id: orderId })).toHaveLength(0);
  });

  it('returns 404 naming the code when referral_code does not exist', async () => {
    const { brand } = await setup();
    const response = await post(brand.headers, { email: 'x@example.com', order_id: uniqueOrderId(), order_value: 30, referral_code: 'NOPE123' });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ success: false, error: expect.stringContaining('NOPE123'), code: 'not_found' });
  });

  it('attributes by a referral code found in coupons_applied and sums their discounts', async () => {
    const { brand, advocate } = await setup();
    const response = await post(brand.headers, {
      customer_email: 'coupon@example.com',
      order_id: uniqueOrderId(),
      order_value: 90,
      coupons_applied: [
        { code: 'SUMMER', discount_amount: 5 },
        { code: advocate.code, discount_amount: 10, discount_tax: 1 },
      ],
    });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ referral_code: advocate.code, discount_applied: 15, total_discount: 15 });
  });

  it('uses referrer_reward_paid when sent instead of the brand rule', async () => {
    const { brand, advocate } = await setup();
    const response = await post(brand.headers, { email: 'r@example.com', order_id: uniqueOrderId(), order_value: 100, referral_code: advocate.code, referrer_reward_paid: 3.33 });
    expect(response.body.data.referrer_reward_paid).toBe(3.33);
    expect((await rewardBalance(t.db, brand.brandId, advocate.advocateId)).balance).toBe(3.33);
  });

  it('credits a pending conversion only when it is reported again as completed, once', async () => {
    const { brand, advocate } = await setup({ reward_type: 'fixed', reward_value: 4 });
    const body = { email: 'p@example.com', order_id: uniqueOrderId(), order_value: 40, referral_code: advocate.code };
    const pending = await post(brand.headers, { ...body, status: 'pending' });
    expect(pending.body.data.status).toBe('pending');
    expect((await rewardBalance(t.db, brand.brandId, advocate.advocateId)).balance).toBe(0);
    const completed = await post(brand.headers, { ...body, status: 'completed' });
    expect(completed.status).toBe(200);
    expect(completed.body.data.status).toBe('completed');
    await post(brand.headers, { ...body, status: 'completed' });
    expect((await rewardBalance(t.db, brand.brandId, advocate.advocateId)).balance).toBe(4);
  });

  it('stores product lines with aliases, defaults and extra fields', async () => {
    const { brand, advocate } = await setup();
    const response = await post(brand.headers, {
      email: 'lines@example.com',
      order_id: uniqueOrderId(),
      order_value: 100,
      referral_code: advocate.code,
      products: [
        { title: 'Tee', qty: 2, total: 20, sku: 'TEE-1', size: 'M', variant: 'blue' },
        { product_name: 'Mug', line_total: 15 },
        {},
        { name: 'Cap', quantity: 3, price: 9.99 },
      ],
    });
    expect(response.status).toBe(201);
    const rows = await t.db('conversion_products')
      .where({ brand_id: brand.brandId, conversion_id: response.body.data.id })
      .orderBy('line_no');
    expect(rows.map((row) => [row.name, row.quantity, row.price, row.line_total, row.sku])).toEqual([
      ['Tee', 2, '20.00', '40.00', 'TEE-1'],
      ['Mug', 1, '15.00', '15.00', null],
      ['Unknown Product', 1, '0.00', '0.00', null],
      ['Cap', 3, '9.99', '29.97', null],
    ]);
    expect(rows[0].attributes).toEqual({ size: 'M', variant: 'blue' });
  });

  it('maps the items form: unit_price or line_total, sku, category_path and image_url', async () => {
    const { brand, advocate } = await setup();
    const response = await post(brand.headers, {
      customer_email: 'items@example.com',
      order_id: uniqueOrderId(),
      order_total: 100,
      tax: 0,
      shipping: 0,
      discount: 0,
      referral_code: advocate.code,
      items: [
        { name: 'Plan', quantity: 2, unit_price: 25, sku: 'PLAN-PRO', category_path: ['Software', 'Plans'], image_url: 'https://example.com/p.png' },
        { name: 'Setup', quantity: 3, line_total: 50 },
      ],
    });
    expect(response.status).toBe(201);
    const rows = await t.db('conversion_products').where({ brand_id: brand.brandId, conversion_id: response.body.data.id }).orderBy('line_no');
    expect(rows.map((row) => [row.name, row.quantity, row.price, row.line_total, row.sku])).toEqual([
      ['Plan', 2, '25.00', '50.00', 'PLAN-PRO'],
      ['Setup', 3, '16.67', '50.00', null],
    ]);
    expect(rows[0].attributes).toEqual({ category_path: ['Software', 'Plans'], image_url: 'https://example.com/p.png' });
  });

  it('maps the alternate form: order_total 108, tax 8, shipping 10 → order_value 108, order_subtotal 90', async () => {
    const { brand, advocate } = await setup();
    const response = await post(brand.headers, {
      customer_email: 'alt@example.com',
      customer_name: 'Alt Customer',
      order_id: uniqueOrderId(),
      order_total: 108,
      tax: 8,
      shipping: 10,
      discount: 12,
      referral_code: advocate.code,
    });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ order_value: 108, order_subtotal: 90, discount_applied: 12, total_discount: 12 });
  });

  it('deduplicates the alternate form without order_id by its content within 24 hours', async () => {
    const { brand, advocate } = await setup({ reward_type: 'fixed', reward_value: 2 });
    const body = { customer_email: 'hash@example.com', order_total: 50, tax: 0, shipping: 0, discount: 0, referral_code: advocate.code };
    const first = await post(brand.headers, body);
    const reordered = await post(brand.headers, { referral_code: advocate.code, discount: 0, shipping: 0, tax: 0, order_total: 50, customer_email: 'hash@example.com' });
    expect(first.status).toBe(201);
    expect(reordered.status).toBe(200);
    expect(reordered.body.data.id).toBe(first.body.data.id);
    expect((await rewardBalance(t.db, brand.brandId, advocate.advocateId)).balance).toBe(2);
  });

  describe('validation', () => {
    const valid = { email: 'v@example.com', order_id: 'o-1', order_value: 10 };
    it.each([
      ['email', { order_id: 'o-1', order_value: 10 }],
      ['order_id', { email: 'v@example.com', order_value: 10 }],
      ['order_value', { email: 'v@example.com', order_id: 'o-1' }],
    ])('returns 400 naming %s when it is missing (primary form)', async (field, body) => {
      const { brand } = await setup();
      const response = await post(brand.headers, body);
      expect(response.status).toBe(400);
      expect(response.body.success).toBe(false);
      expect(response.body.error).toContain(field);
    });

    it.each(['customer_email', 'tax', 'shipping', 'discount'])('returns 400 naming %s when it is missing (alternate form)', async (field) => {
      const { brand } = await setup();
      const body: Record<string, unknown> = { customer_email: 'a@example.com', order_total: 10, tax: 0, shipping: 0, discount: 0 };
      delete body[field];
      const response = await post(brand.headers, body);
      expect(response.status).toBe(400);
      expect(response.body.error).toContain(field);
    });

    it('returns 400 naming order_value when it is a quoted number', async () => {
      const { brand } = await setup();
      const response = await post(brand.headers, { ...valid, order_value: '120' });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatch(/order_value must be a number/);
    });

    it.each([
      ['products.0.quantity', { products: [{ name: 'x', quantity: 1.5 }] }],
      ['products.0.price', { products: [{ name: 'x', price: '5' }] }],
      ['coupons_applied.0.code', { coupons_applied: [{ discount_amount: 1 }] }],
      ['order_value', { order_value: -1 }],
      ['discount_type', { discount_type: 'bogus' }],
      ['metadata', { metadata: 'not an object' }],
      ['email', { email: 'not-an-email' }],
    ])('returns 400 naming %s when it is invalid', async (field, patch) => {
      const { brand } = await setup();
      const response = await post(brand.headers, { ...valid, ...patch });
      expect(response.status).toBe(400);
      expect(response.body.error).toContain(field);
    });

    it('returns 400 beyond 500 product lines and for strings over 2,048 characters', async () => {
      const { brand } = await setup();
      const many = await post(brand.headers, { ...valid, products: Array.from({ length: 501 }, () => ({ name: 'x' })) });
      expect(many.status).toBe(400);
      expect(many.body.error).toContain('products');
      const long = await post(brand.headers, { ...valid, source: 'x'.repeat(2049) });
      expect(long.status).toBe(400);
      expect(long.body.error).toContain('source');
    });
  });
});

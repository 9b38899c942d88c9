import { givenAdvocate, givenBrand, type TestBrand, uniqueOrderId } from '../helpers/fixtures';
import { signedHeaders } from '../helpers/signed-convert';
import { type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

/** `length` distinct CJK characters (3 bytes each in UTF-8) that do not repeat, so PostgreSQL cannot compress them. */
const cjk = (length: number) => Array.from({ length }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20000))).join('');
/** 3,000 bytes of UTF-8: more than a btree index entry can hold. */
const CJK_1000 = cjk(1000);
/** Under 512 characters, but 1,200 bytes. */
const CJK_400 = cjk(400);

function post(path: string, brand: TestBrand, body: object) {
  const raw = JSON.stringify(body);
  const headers = path === '/api/v1/convert' ? signedHeaders(brand.brandId, brand.apiKey, raw) : brand.headers;
  return t.http.post(path).set(headers).set('Content-Type', 'application/json').send(raw);
}

async function rowCounts(brandId: string) {
  const count = async (table: string) => Number((await t.db(table).where({ brand_id: brandId }).count({ n: '*' }))[0]!.n);
  return { claims: await count('claims'), conversions: await count('conversions'), refunds: await count('refunds'), visits: await count('visits') };
}

/** A premier brand, an advocate, and one converted order of 100 to refund. */
async function givenConvertedOrder() {
  const brand = await givenBrand(t.db, { plan: 'premier' });
  const advocate = await givenAdvocate(t.db, brand.brandId);
  const orderId = uniqueOrderId();
  const converted = await post('/api/v1/track/conversion', brand, { email: 'buyer@example.com', order_id: orderId, order_value: 100, referral_code: advocate.code });
  expect(converted.status).toBe(201);
  return { brand, advocate, orderId };
}

describe('identifiers are limited in bytes as well as characters', () => {
  type Case = [string, string, string, (code: string, orderId: string, long: string) => object];
  const cases: Case[] = [
    ['conversion', 'order_id', '/api/v1/track/conversion', (code, _o, long) => ({ email: 'c@example.com', order_id: long, order_value: 10, referral_code: code })],
    ['conversion', 'email', '/api/v1/track/conversion', (code, _o, long) => ({ email: `${long}@example.com`, order_id: uniqueOrderId(), order_value: 10, referral_code: code })],
    ['conversion', 'visitor_id', '/api/v1/track/conversion', (_c, _o, long) => ({ email: 'c@example.com', order_id: uniqueOrderId(), order_value: 10, visitor_id: long })],
    ['conversion', 'coupons_applied.0.code', '/api/v1/track/conversion', (_c, _o, long) => ({ email: 'c@example.com', order_id: uniqueOrderId(), order_value: 10, coupons_applied: [{ code: long }] })],
    ['refund', 'refund_id', '/api/v1/track/refund', (_c, orderId, long) => ({ order_id: orderId, refund_amount: 1, is_full_refund: false, refund_id: long })],
    ['claim', 'email', '/api/v1/track/claim', (code, _o, long) => ({ referral_code: code, email: `${long}@example.com` })],
    ['claim', 'referral_code', '/api/v1/track/claim', (_c, _o, long) => ({ referral_code: long, email: 'c@example.com' })],
    ['convert', 'email', '/api/v1/convert', (code, _o, long) => ({ referral_code: code, email: `${long}@example.com`, value: 10 })],
    ['visit', 'existing_code', '/api/v1/track/visit', (code, _o, long) => ({ referral_code: code, existing_code: long })],
    ['check-eligibility', 'customer_email', '/api/v1/track/check-eligibility', (code, _o, long) => ({ referral_code: code, customer_email: `${long}@example.com` })],
  ];

  it.each(cases)('%s: returns 400 naming %s for 1,000 CJK characters (3 KB) and stores nothing', async (_endpoint, field, path, body) => {
    const { brand, advocate, orderId } = await givenConvertedOrder();
    const before = await rowCounts(brand.brandId);
    const response = await post(path, brand, body(advocate.code, orderId, CJK_1000));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, error: expect.stringContaining(field), code: 'invalid_request' });
    expect(await rowCounts(brand.brandId)).toEqual(before);
  });

  it('returns 400 naming order_id for 400 CJK characters: fewer than 512 characters but more than 1,024 bytes', async () => {
    const brand = await givenBrand(t.db);
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const response = await post('/api/v1/track/conversion', brand, { email: 'c@example.com', order_id: CJK_400, order_value: 10, referral_code: advocate.code });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('order_id: must be at most 1024 bytes in UTF-8');
  });

  it('accepts identifiers at the limits: 512 ASCII characters, and 341 CJK characters (1,023 bytes)', async () => {
    const brand = await givenBrand(t.db);
    const advocate = await givenAdvocate(t.db, brand.brandId);
    for (const orderId of ['o'.repeat(512), cjk(341)]) {
      const response = await post('/api/v1/track/conversion', brand, { email: 'c@example.com', order_id: orderId, order_value: 10, referral_code: advocate.code });
      expect(response.status).toBe(201);
      expect(await t.db('conversions').where({ brand_id: brand.brandId, order_id: orderId }).first()).toBeDefined();
    }
    const tooLong = await post('/api/v1/track/conversion', brand, { email: 'c@example.com', order_id: 'o'.repeat(513), order_value: 10, referral_code: advocate.code });
    expect(tooLong.body.error).toBe('order_id: must be at most 512 characters');
  });
});

describe('connector input no schema limited is a 400, so the Medusa plugin stops retrying it', () => {
  async function deliver(eventId: string, amounts: Record<string, unknown>) {
    const { brand, advocate } = await givenConvertedOrder();
    const order = { id: uniqueOrderId(), email: 'm@example.com', subtotal: 10, tax_total: 0, shipping_total: 0, summary: { paid_total: 10, refunded_total: 0 }, promotions: [{ code: advocate.code }], ...amounts };
    const body = JSON.stringify({ version: 1, event_id: eventId, event_name: 'order.placed', order });
    const before = await rowCounts(brand.brandId);
    const response = await t.http.post('/medusa/webhooks').set(signedHeaders(brand.brandId, brand.apiKey, body)).send(body);
    expect(await rowCounts(brand.brandId)).toEqual(before);
    return response;
  }

  it('POST /medusa/webhooks answers 400, not 500, for a 1,000-character CJK event id (too long to index)', async () => {
    const response = await deliver(CJK_1000, { total: 10, discount_total: 0 });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, error: expect.stringMatching(/too long to be stored/), code: 'invalid_request' });
  });

  it('POST /medusa/webhooks answers 400, not 500, when total plus discount exceed the largest amount', async () => {
    const response = await deliver(`evt-${uniqueOrderId()}`, { total: 999_999_999_999.99, discount_total: 7, summary: { paid_total: 999_999_999_999.99, refunded_total: 0 } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, error: 'amount 1000000000006.99 is out of range (at most 999999999999.99)', code: 'invalid_request' });
  });
});

describe('JSON nesting is bounded', () => {
  it('returns 400 for a 14 KB body nested 7,000 levels deep', async () => {
    const brand = await givenBrand(t.db);
    const deep = `{"email":"c@example.com","order_id":"o","order_value":1,"metadata":{"a":${'['.repeat(7000)}${']'.repeat(7000)}}}`;
    const response = await t.http.post('/api/v1/track/conversion').set(brand.headers).set('Content-Type', 'application/json').send(deep);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, error: 'request body is nested more than 32 levels deep', code: 'invalid_request' });
  });

  it('refuses a body nested 33 levels with no bracket but its own, and reads one nested 32', async () => {
    const brand = await givenBrand(t.db);
    // The body's own object is level 1; metadata's value holds the other levels - 1.
    const nestedTo = (levels: number) => `{"email":"c@example.com","order_id":"o-${levels}","order_value":1,"metadata":${'{"a":'.repeat(levels - 1)}1${'}'.repeat(levels - 1)}}`;
    const deep = await t.http.post('/api/v1/track/conversion').set(brand.headers).set('Content-Type', 'application/json').send(nestedTo(33));
    expect(deep.status).toBe(400);
    expect(deep.body.error).toBe('request body is nested more than 32 levels deep');
    const deepest = await t.http.post('/api/v1/track/conversion').set(brand.headers).set('Content-Type', 'application/json').send(nestedTo(32));
    expect(deepest.body.error).not.toBe('request body is nested more than 32 levels deep');
  });

  it('accepts metadata nested 30 levels deep, and counts brackets inside strings as text', async () => {
    const brand = await givenBrand(t.db);
    const advocate = await givenAdvocate(t.db, brand.brandId);
    let nested: unknown = { note: '[[[[{{{{'.repeat(10) };
    for (let level = 0; level < 29; level += 1) nested = { level: nested };
    const response = await post('/api/v1/track/conversion', brand, { email: 'c@example.com', order_id: uniqueOrderId(), order_value: 1, referral_code: advocate.code, metadata: nested as object });
    expect(response.status).toBe(201);
  });
});

describe('amounts are whole cents', () => {
  it.each([1e-9, 0.001, 10.005])('returns 400 naming refund_amount for a refund of %p and stores nothing', async (amount) => {
    const { brand, orderId } = await givenConvertedOrder();
    const response = await post('/api/v1/track/refund', brand, { order_id: orderId, refund_amount: amount, is_full_refund: false });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, error: 'refund_amount: must be a whole number of cents (at most 2 decimals)', code: 'invalid_request' });
    expect(await t.db('refunds').where({ brand_id: brand.brandId })).toHaveLength(0);
    expect((await t.db('conversions').where({ brand_id: brand.brandId, order_id: orderId }).first()).refunded_total).toBe('0.00');
  });

  it('returns 400 naming the field for an order_value or a product price with three decimals', async () => {
    const brand = await givenBrand(t.db);
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const value = await post('/api/v1/track/conversion', brand, { email: 'c@example.com', order_id: uniqueOrderId(), order_value: 19.999, referral_code: advocate.code });
    expect(value.body.error).toBe('order_value: must be a whole number of cents (at most 2 decimals)');
    const price = await post('/api/v1/track/conversion', brand, { email: 'c@example.com', order_id: uniqueOrderId(), order_value: 20, referral_code: advocate.code, products: [{ name: 'x', price: 0.001 }] });
    expect(price.body.error).toBe('products.0.price: must be a whole number of cents (at most 2 decimals)');
  });

  it('accepts two-decimal amounts whatever their binary noise (19.99, 0.1 + 0.2)', async () => {
    const brand = await givenBrand(t.db);
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const response = await post('/api/v1/track/conversion', brand, { email: 'c@example.com', order_id: uniqueOrderId(), order_value: 19.99, discount_applied: 0.1 + 0.2, referral_code: advocate.code });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ order_value: 19.99, discount_applied: 0.3 });
  });
});

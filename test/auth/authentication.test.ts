import { revokeApiKey } from '../../core/brands/api-keys';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

const conversion = () => ({ email: 'a@example.com', order_id: uniqueOrderId(), order_value: 10 });

describe('API key authentication', () => {
  it('returns 401 without headers', async () => {
    const response = await t.http.post('/api/v1/track/conversion').send(conversion());
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ success: false, error: expect.stringContaining('X-API-Key'), code: 'unauthorized' });
  });

  it('returns 401 with a key but no brand ID, and with a malformed brand ID', async () => {
    const brand = await givenBrand(t.db);
    const noBrand = await t.http.post('/api/v1/track/conversion').set('X-API-Key', brand.apiKey).send(conversion());
    expect(noBrand.status).toBe(401);
    expect(noBrand.body.error).toContain('X-Brand-ID');
    const malformed = await t.http.post('/api/v1/track/conversion').set({ 'X-API-Key': brand.apiKey, 'X-Brand-ID': 'acme' }).send(conversion());
    expect(malformed.status).toBe(401);
  });

  it('returns 401 for an unknown key', async () => {
    const brand = await givenBrand(t.db);
    const response = await t.http.post('/api/v1/track/conversion').set({ ...brand.headers, 'X-API-Key': 'rk_not-a-real-key' }).send(conversion());
    expect(response.status).toBe(401);
  });

  it("returns 403 when X-Brand-ID is another brand's ID", async () => {
    const mine = await givenBrand(t.db);
    const theirs = await givenBrand(t.db);
    const response = await t.http.post('/api/v1/track/conversion').set({ 'X-API-Key': mine.apiKey, 'X-Brand-ID': theirs.brandId }).send(conversion());
    expect(response.status).toBe(403);
    expect(response.body.success).toBe(false);
  });

  it('returns 401 once the key is revoked', async () => {
    const brand = await givenBrand(t.db);
    const before = await t.http.post('/api/v1/track/conversion').set(brand.headers).send(conversion());
    expect(before.status).toBe(200);
    await revokeApiKey(t.db, brand.brandId, brand.keyId);
    const after = await t.http.post('/api/v1/track/conversion').set(brand.headers).send(conversion());
    expect(after.status).toBe(401);
  });

  it('lets a starter plan use conversion and refund', async () => {
    const brand = await givenBrand(t.db, { plan: 'starter' });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const orderId = uniqueOrderId();
    const created = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 's@example.com', order_id: orderId, order_value: 20, referral_code: advocate.code });
    expect(created.status).toBe(201);
    const refunded = await t.http.post('/api/v1/track/refund').set(brand.headers).send({ order_id: orderId, refund_amount: 20, is_full_refund: true });
    expect(refunded.status).toBe(200);
  });

  it('refuses an uninstalled brand with 403', async () => {
    const brand = await givenBrand(t.db);
    await t.db('brands').where({ brand_id: brand.brandId }).update({ status: 'uninstalled' });
    const response = await t.http.post('/api/v1/track/conversion').set(brand.headers).send(conversion());
    expect(response.status).toBe(403);
  });
});

describe('tenancy', () => {
  it("never lets brand B see or change brand A's records (404)", async () => {
    const a = await givenBrand(t.db);
    const b = await givenBrand(t.db);
    const advocateA = await givenAdvocate(t.db, a.brandId);
    const orderId = uniqueOrderId();
    const created = await t.http.post('/api/v1/track/conversion').set(a.headers).send({ email: 'x@example.com', order_id: orderId, order_value: 50, referral_code: advocateA.code });
    expect(created.status).toBe(201);

    const byOrder = await t.http.post('/api/v1/track/refund').set(b.headers).send({ order_id: orderId, refund_amount: 10, is_full_refund: false });
    expect(byOrder.status).toBe(404);
    const byId = await t.http.post('/api/v1/track/refund').set(b.headers).send({ conversion_id: created.body.data.id, refund_amount: 10, is_full_refund: false });
    expect(byId.status).toBe(404);
    const code = await t.http.post('/api/v1/track/conversion').set(b.headers).send({ email: 'y@example.com', order_id: uniqueOrderId(), order_value: 5, referral_code: advocateA.code });
    expect(code.status).toBe(404);
    // The same order_id at brand B is a different order, not a duplicate of A's.
    const advocateB = await givenAdvocate(t.db, b.brandId);
    const sameOrderId = await t.http.post('/api/v1/track/conversion').set(b.headers).send({ email: 'z@example.com', order_id: orderId, order_value: 7, referral_code: advocateB.code });
    expect(sameOrderId.status).toBe(201);
    const untouched = await t.db('conversions').where({ brand_id: a.brandId, order_id: orderId }).first();
    expect(untouched).toMatchObject({ status: 'completed', refunded_total: '0.00', order_value: '50.00' });
  });
});

describe('HTTPS rule', () => {
  it('refuses plain HTTP from a non-loopback client behind a trusted proxy with 403', async () => {
    const proxied = await startTestApp({ trustProxy: true }, t.db);
    const brand = await givenBrand(t.db);
    const response = await proxied.http
      .post('/api/v1/track/conversion')
      .set({ ...brand.headers, 'X-Forwarded-For': '203.0.113.9', 'X-Forwarded-Proto': 'http' })
      .send(conversion());
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ success: false, error: 'HTTPS is required', code: 'https_required' });
  });

  it('accepts a request the proxy received over HTTPS', async () => {
    const proxied = await startTestApp({ trustProxy: true }, t.db);
    const brand = await givenBrand(t.db);
    const response = await proxied.http
      .post('/api/v1/track/conversion')
      .set({ ...brand.headers, 'X-Forwarded-For': '203.0.113.9', 'X-Forwarded-Proto': 'https' })
      .send(conversion());
    expect(response.status).toBe(200);
  });
});

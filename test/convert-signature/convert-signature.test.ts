import { createApiKey, revokeApiKey } from '../../core/brands/api-keys';
import { updateBrand } from '../../core/brands/brand';
import { givenAdvocate, givenBrand } from '../helpers/fixtures';
import { nowSeconds, signedHeaders } from '../helpers/signed-convert';
import { TEST_SECRET, type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

let counter = 0;
async function setup() {
  const brand = await givenBrand(t.db, { plan: 'starter' });
  const advocate = await givenAdvocate(t.db, brand.brandId);
  counter += 1;
  // Odd whitespace and key order, exactly as a webhook source might serialise it.
  const raw = `{ "value":40,\n  "email" : "sig${counter}-${Date.now()}@example.com",\t"referral_code":"${advocate.code}" }`;
  return { brand, advocate, raw };
}

const post = (headers: Record<string, string>, raw: string) => t.http.post('/api/v1/convert').set(headers).send(raw);

describe('POST /api/v1/convert signature', () => {
  it('accepts a signature over the exact raw bytes sent, whitespace and key order included', async () => {
    const { brand, advocate, raw } = await setup();
    const response = await post(signedHeaders(brand.brandId, brand.apiKey, raw), raw);
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ referral_code: advocate.code, raw_value: 40 });
    const stored = await t.db('claims').where({ brand_id: brand.brandId, claim_id: response.body.data.claim_id }).first();
    expect(stored).toBeDefined();
  });

  it('refuses with 401 when one byte of the body differs from what was signed', async () => {
    const { brand, raw } = await setup();
    const headers = signedHeaders(brand.brandId, brand.apiKey, raw);
    const tampered = raw.replace('"value":40', '"value":90');
    const response = await post(headers, tampered);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ success: false, error: expect.stringMatching(/X-AL-Signature does not match/), code: 'unauthorized' });
    expect(await t.db('claims').where({ brand_id: brand.brandId })).toHaveLength(0);
  });

  it('refuses with 401 a re-serialised body signed in place of the bytes sent', async () => {
    const { brand, raw } = await setup();
    const headers = signedHeaders(brand.brandId, brand.apiKey, JSON.stringify(JSON.parse(raw)));
    expect((await post(headers, raw)).status).toBe(401);
  });

  it('refuses with 401 a signature made with a revoked key', async () => {
    const { brand, raw } = await setup();
    await createApiKey(t.db, brand.brandId, TEST_SECRET, 'still active');
    await revokeApiKey(t.db, brand.brandId, brand.keyId);
    expect((await post(signedHeaders(brand.brandId, brand.apiKey, raw), raw)).status).toBe(401);
  });

  it("accepts a signature made with the brand's second active key", async () => {
    const { brand, raw } = await setup();
    const second = await createApiKey(t.db, brand.brandId, TEST_SECRET, 'second integration');
    expect((await post(signedHeaders(brand.brandId, second.api_key, raw), raw)).status).toBe(201);
  });

  it("refuses with 401 a signature made with another brand's key", async () => {
    const { brand, raw } = await setup();
    const other = await givenBrand(t.db);
    expect((await post(signedHeaders(brand.brandId, other.apiKey, raw), raw)).status).toBe(401);
  });

  it('refuses with 401 an X-API-Key without a signature', async () => {
    const { brand, raw } = await setup();
    const response = await post({ ...brand.headers, 'Content-Type': 'application/json' }, raw);
    expect(response.status).toBe(401);
    expect(response.body.error).toMatch(/X-AL-Signature header is required/);
  });

  it.each([
    ['X-Brand-ID is missing', (headers: Record<string, string>) => ({ ...headers, 'X-Brand-ID': '' }), /X-Brand-ID header is required/],
    ['X-Brand-ID is not a UUID', (headers: Record<string, string>) => ({ ...headers, 'X-Brand-ID': 'brand-1' }), /X-Brand-ID is not a valid brand ID/],
    ['X-Brand-ID names no brand', (headers: Record<string, string>) => ({ ...headers, 'X-Brand-ID': '00000000-0000-4000-8000-000000000000' }), /does not match/],
    ['X-AL-Signature is not hex', (headers: Record<string, string>) => ({ ...headers, 'X-AL-Signature': 'not-a-signature' }), /64 hex characters/],
    ['X-AL-Timestamp is not unix seconds', (headers: Record<string, string>) => ({ ...headers, 'X-AL-Timestamp': '2026-11-22T10:00:00Z' }), /unix timestamp/],
  ])('refuses with 401 when %s', async (_case, change, message) => {
    const { brand, raw } = await setup();
    const response = await post(change(signedHeaders(brand.brandId, brand.apiKey, raw)), raw);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ success: false, error: expect.stringMatching(message), code: 'unauthorized' });
  });

  it('refuses with 403 a correct signature for a brand that is no longer active', async () => {
    const { brand, raw } = await setup();
    await updateBrand(t.db, brand.brandId, { status: 'uninstalled' });
    expect((await post(signedHeaders(brand.brandId, brand.apiKey, raw), raw)).status).toBe(403);
  });
});

describe('POST /api/v1/convert with X-AL-Timestamp', () => {
  it('accepts a signature over "{timestamp}.{raw body}"', async () => {
    const { brand, raw } = await setup();
    const headers = signedHeaders(brand.brandId, brand.apiKey, raw, { timestamp: nowSeconds(), signTimestamp: true });
    expect((await post(headers, raw)).status).toBe(201);
  });

  it('accepts a signature over the raw body alone', async () => {
    const { brand, raw } = await setup();
    expect((await post(signedHeaders(brand.brandId, brand.apiKey, raw, { timestamp: nowSeconds() }), raw)).status).toBe(201);
  });

  it('refuses with 401 a "{timestamp}.{body}" signature whose timestamp header was changed', async () => {
    const { brand, raw } = await setup();
    const headers = signedHeaders(brand.brandId, brand.apiKey, raw, { timestamp: nowSeconds(), signTimestamp: true });
    expect((await post({ ...headers, 'X-AL-Timestamp': String(nowSeconds() - 60) }, raw)).status).toBe(401);
  });

  it.each([
    ['refuses with 401', '301 seconds old', -301, 401],
    ['refuses with 401', '301 seconds ahead', 301, 401],
    ['accepts', '295 seconds old', -295, 201],
    ['accepts', '295 seconds ahead', 295, 201],
  ])('%s a timestamp %s', async (_verdict, _case, offset, status) => {
    const { brand, raw } = await setup();
    // Whole seconds rounded away from the server's clock: with the time the request takes, a
    // floored "301 seconds ahead" could reach the server only 300.x seconds ahead.
    const timestamp = (offset > 0 ? Math.ceil(Date.now() / 1000) : nowSeconds()) + offset;
    const headers = signedHeaders(brand.brandId, brand.apiKey, raw, { timestamp, signTimestamp: true });
    const response = await post(headers, raw);
    expect(response.status).toBe(status);
    if (status === 401) expect(response.body.error).toMatch(/more than 300 seconds from the server clock/);
  });

  it('refuses with 401 the same signed request sent a second time', async () => {
    const { brand, raw } = await setup();
    const headers = signedHeaders(brand.brandId, brand.apiKey, raw, { timestamp: nowSeconds(), signTimestamp: true });
    expect((await post(headers, raw)).status).toBe(201);
    const replay = await post(headers, raw);
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ success: false, error: expect.stringMatching(/already used \(replay\)/), code: 'unauthorized' });
  });

  it('refuses with 401 a replay whose signature is written in upper case', async () => {
    const { brand, raw } = await setup();
    const headers = signedHeaders(brand.brandId, brand.apiKey, raw, { timestamp: nowSeconds(), signTimestamp: true });
    expect((await post(headers, raw)).status).toBe(201);
    expect((await post({ ...headers, 'X-AL-Signature': headers['X-AL-Signature']!.toUpperCase() }, raw)).status).toBe(401);
  });

  it('accepts the same body signed again with a new timestamp (then the duplicate claim answers 409)', async () => {
    const { brand, raw } = await setup();
    const now = nowSeconds();
    const first = await post(signedHeaders(brand.brandId, brand.apiKey, raw, { timestamp: now - 1, signTimestamp: true }), raw);
    const again = await post(signedHeaders(brand.brandId, brand.apiKey, raw, { timestamp: now, signTimestamp: true }), raw);
    expect(again.status).toBe(409);
    expect(again.body.claim_id).toBe(first.body.data.claim_id);
  });

  it('lets a request that failed and changed nothing be retried exactly as signed', async () => {
    const { brand } = await setup();
    const raw = '{"referral_code":"NO-SUCH-CODE","email":"retry@example.com"}';
    const headers = signedHeaders(brand.brandId, brand.apiKey, raw, { timestamp: nowSeconds(), signTimestamp: true });
    expect((await post(headers, raw)).status).toBe(404);
    expect((await post(headers, raw)).status).toBe(404);
  });

  it("forgets the brand's signatures whose window has passed when it records a new one", async () => {
    const { brand, raw } = await setup();
    const expired = { brand_id: brand.brandId, signature: 'f'.repeat(64), expires_at: new Date(Date.now() - 1000) };
    await t.db('signature_replays').insert(expired);
    const headers = signedHeaders(brand.brandId, brand.apiKey, raw, { timestamp: nowSeconds(), signTimestamp: true });
    expect((await post(headers, raw)).status).toBe(201);
    const kept = await t.db('signature_replays').where({ brand_id: brand.brandId }).pluck('signature');
    expect(kept).toEqual([headers['X-AL-Signature']]);
  });

  it('does not spend a signature that failed verification', async () => {
    const { brand, raw } = await setup();
    const headers = signedHeaders(brand.brandId, brand.apiKey, raw, { timestamp: nowSeconds(), signTimestamp: true });
    expect((await post(headers, raw.replace('40', '41'))).status).toBe(401);
    expect((await post(headers, raw)).status).toBe(201);
  });
});

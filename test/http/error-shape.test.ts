import { givenAdvocate, givenBrand } from '../helpers/fixtures';
import { errorAnswer } from '../../server/middleware/error-envelope';
import { signedHeaders } from '../helpers/signed-convert';
import { GENEROUS_LIMITS, type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

const conversion = (extra: object = {}) => ({ email: 'c@example.com', order_id: `o-${Date.now()}-${Math.random()}`, order_value: 10, ...extra });

/** The one error shape: a sentence for people, a stable code for programs. */
function expectError(response: { status: number; body: unknown }, status: number, code: string, error: RegExp) {
  expect({ status: response.status, body: response.body }).toEqual({ status, body: { success: false, error: expect.stringMatching(error), code } });
}

describe('every error body is {success: false, error, code}', () => {
  it('400 invalid_request for malformed JSON and for a field of the wrong type, naming the field', async () => {
    const brand = await givenBrand(t.db);
    expectError(await t.http.post('/api/v1/track/conversion').set(brand.headers).set('Content-Type', 'application/json').send('{"email":'), 400, 'invalid_request', /not valid JSON/);
    expectError(await t.http.post('/api/v1/track/conversion').set(brand.headers).send(conversion({ order_value: '10' })), 400, 'invalid_request', /^order_value must be a number, not a string$/);
  });

  it('401 unauthorized without an API key or with a bad signature', async () => {
    expectError(await t.http.post('/api/v1/track/conversion').send(conversion()), 401, 'unauthorized', /X-API-Key/);
    const brand = await givenBrand(t.db);
    const body = JSON.stringify({ referral_code: 'X', email: 'c@example.com' });
    expectError(await t.http.post('/api/v1/convert').set(signedHeaders(brand.brandId, 'not-the-key', body)).send(body), 401, 'unauthorized', /X-AL-Signature does not match/);
  });

  it('403 forbidden for a key of another brand and for an inactive brand', async () => {
    const a = await givenBrand(t.db);
    const b = await givenBrand(t.db);
    expectError(await t.http.post('/api/v1/track/conversion').set({ ...a.headers, 'X-Brand-ID': b.brandId }).send(conversion()), 403, 'forbidden', /does not match/);
    await t.db('brands').where({ brand_id: a.brandId }).update({ status: 'uninstalled' });
    expectError(await t.http.post('/api/v1/track/conversion').set(a.headers).send(conversion()), 403, 'forbidden', /not active/);
  });

  it('403 plan_required for a Premier endpoint on a lower plan', async () => {
    const brand = await givenBrand(t.db, { plan: 'growth' });
    expectError(await t.http.post('/api/v1/track/claim').set(brand.headers).send({ referral_code: 'X', email: 'c@example.com' }), 403, 'plan_required', /Premier plan/);
  });

  it('403 https_required for plain HTTP from a non-loopback client', async () => {
    const proxied = await startTestApp({ trustProxy: true }, t.db);
    const brand = await givenBrand(t.db);
    const response = await proxied.http.post('/api/v1/track/conversion').set({ ...brand.headers, 'X-Forwarded-For': '203.0.113.9', 'X-Forwarded-Proto': 'http' }).send(conversion());
    expectError(response, 403, 'https_required', /^HTTPS is required$/);
  });

  it('404 not_found for an unknown referral code and for an unknown route; 405 method_not_allowed for GET on a POST route', async () => {
    const brand = await givenBrand(t.db);
    expectError(await t.http.post('/api/v1/track/conversion').set(brand.headers).send(conversion({ referral_code: 'NO-SUCH-CODE' })), 404, 'not_found', /NO-SUCH-CODE/);
    expectError(await t.http.post('/api/v1/nothing-here').send({}), 404, 'not_found', /no route for POST \/api\/v1\/nothing-here/);
    expectError(await t.http.get('/api/v1/track/conversion'), 405, 'method_not_allowed', /GET is not allowed/);
  });

  it('409 conflict for a repeated claim, with the existing claim_id beside the code', async () => {
    const brand = await givenBrand(t.db, { plan: 'premier' });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const claim = { referral_code: advocate.code, email: 'twice@example.com' };
    const first = await t.http.post('/api/v1/track/claim').set(brand.headers).send(claim);
    expect(first.status).toBe(201);
    const again = await t.http.post('/api/v1/track/claim').set(brand.headers).send(claim);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ success: false, error: expect.stringMatching(/within 24 hours/), code: 'conflict', claim_id: first.body.data.claim_id });
  });

  it('413 payload_too_large for a body over 1 MiB', async () => {
    const brand = await givenBrand(t.db);
    const big = JSON.stringify(conversion({ metadata: { pad: 'x'.repeat(1024 * 1024) } }));
    expectError(await t.http.post('/api/v1/track/conversion').set(brand.headers).set('Content-Type', 'application/json').send(big), 413, 'payload_too_large', /exceeds 1048576 bytes/);
  });

  it('429 rate_limited with Retry-After', async () => {
    const limited = await startTestApp({ rateLimits: { ...GENEROUS_LIMITS, eligibility: 1 } }, t.db);
    const brand = await givenBrand(t.db);
    const body = { referral_code: 'X', customer_email: 'c@example.com' };
    await limited.http.post('/api/v1/track/check-eligibility').set(brand.headers).send(body);
    const refused = await limited.http.post('/api/v1/track/check-eligibility').set(brand.headers).send(body);
    expectError(refused, 429, 'rate_limited', /rate limit exceeded/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('a CHECK constraint a schema bound missed is the caller\'s 400, not a 500', () => {
  /** PostgreSQL's own refusal of `change` to a fresh brand (rolled back), as the envelope answers it. */
  async function answerTo(change: Record<string, unknown>) {
    const brand = await givenBrand(t.db);
    const refusal = await t.db.transaction(async (trx) => trx('brands').where({ brand_id: brand.brandId }).update(change)).catch((error: unknown) => error);
    const ctx = { path: '/api/v1/brand', app: t.app } as unknown as Parameters<typeof errorAnswer>[0];
    return { sqlstate: (refusal as { code?: string }).code, ...errorAnswer(ctx, refusal) };
  }

  it('names the column of a table\'s check and says what an amount holds (issue 39: referee_discount_cap 1e300 was a 500)', async () => {
    expect(await answerTo({ fraud_ip_window_days: 0 })).toMatchObject({ sqlstate: '23514', status: 400, code: 'invalid_request', error: 'fraud_ip_window_days is out of the range it may hold' });
    expect(await answerTo({ referee_discount_cap: '1e300' })).toMatchObject({ sqlstate: '23514', status: 400, code: 'invalid_request', error: expect.stringMatching(/^an amount is out of range: .*12 digits/) });
  });
});

describe('the eligibility refusal keeps the shape the spec fixes', () => {
  it('answers 200 {eligible: false, error: <code>, message} with no success field', async () => {
    const brand = await givenBrand(t.db);
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const response = await t.http.post('/api/v1/track/check-eligibility').set(brand.headers).send({ referral_code: advocate.code, customer_email: advocate.email });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ eligible: false, error: 'self_referral', message: expect.any(String) });
  });
});

describe('GET /api/v1/openapi.json states the limits and the error codes', () => {
  it('gives identifiers 512 characters and 1,024 bytes, amounts whole cents, and lists every error code', async () => {
    const document = (await t.http.get('/api/v1/openapi.json')).body;
    const refund = document.paths['/api/v1/track/refund'].post;
    const fields = refund.requestBody.content['application/json'].schema.properties;
    expect(fields.refund_id.anyOf[0]).toMatchObject({ type: 'string', maxLength: 512, 'x-max-bytes': 1024 });
    // Whole minor units of the order's currency, checked by the use case: KWD has 3 decimals, CLF 4.
    expect(fields.refund_amount).toMatchObject({ type: 'number', minimum: 0, multipleOf: 0.0001 });
    expect(fields.refund_reason).toMatchObject({ type: 'string', maxLength: 2048 });
    expect(fields.metadata).toMatchObject({ 'x-max-bytes': 16384 });
    expect(document.info.description).toMatch(/nested at most 32 levels/);
    expect(document.components.schemas.Error.properties.code.enum).toEqual(
      expect.arrayContaining(['invalid_request', 'unauthorized', 'forbidden', 'plan_required', 'not_found', 'conflict', 'payload_too_large', 'rate_limited', 'database_unavailable', 'internal_error']),
    );
    expect(refund.responses['503'].description).toMatch(/database_unavailable/);
    expect(document.paths['/api/v1/track/claim'].post.responses['409'].description).toMatch(/claim_id/);
  });
});

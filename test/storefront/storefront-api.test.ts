import { createApiKey } from '../../core/brands/api-keys';
import { givenAdvocate, givenBrand } from '../helpers/fixtures';
import { TEST_SECRET, type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

const STORE = 'https://shop.example.com';

/** A Premier brand whose storefront is STORE, with a publishable key for its pages. */
async function storefrontBrand() {
  const brand = await givenBrand(t.db, { plan: 'premier', allowed_origins: [STORE], store_url: STORE });
  const publishable = await createApiKey(t.db, brand.brandId, TEST_SECRET, 'storefront', 'publishable');
  return { ...brand, pk: { 'X-API-Key': publishable.api_key, 'X-Brand-ID': brand.brandId } };
}

let n = 0;
const email = () => `shopper-${Date.now()}-${(n += 1)}@example.com`;

describe('the publishable key', () => {
  it('records a visit from the brand\'s storefront origin, with CORS for that origin only', async () => {
    const brand = await storefrontBrand();
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const preflight = await t.http.options('/api/v1/track/visit').set('Origin', STORE).set('Access-Control-Request-Method', 'POST').set('Access-Control-Request-Headers', 'content-type,x-api-key,x-brand-id');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toContain('X-API-Key');
    const visit = await t.http.post('/api/v1/track/visit').set(brand.pk).set('Origin', STORE).send({ referral_code: advocate.code });
    expect(visit.status).toBe(200);
    expect(visit.headers['access-control-allow-origin']).toBe(STORE);
    expect(visit.body.data).toMatchObject({ code: advocate.code, store_code: true });
    const elsewhere = await t.http.post('/api/v1/track/visit').set(brand.pk).set('Origin', 'https://evil.example').send({ referral_code: advocate.code });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.error).toContain('https://evil.example is not one of the brand\'s storefront origins');
    expect(elsewhere.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('is refused everywhere else with a 403 naming the key type; it signs nothing', async () => {
    const brand = await storefrontBrand();
    for (const [method, path] of [['post', '/api/v1/track/conversion'], ['get', '/api/v1/brand'], ['post', '/api/v1/advocates'], ['get', '/api/v1/rewards']] as const) {
      const refused = await t.http[method](path).set(brand.pk).send({});
      expect([path, refused.status, refused.body.code]).toEqual([path, 403, 'key_type_refused']);
      expect(refused.body.error).toMatch(/^X-API-Key is a publishable key/);
    }
    const keys = await t.http.get('/api/v1/api-keys').set(brand.headers);
    expect(keys.body.data.map((key: { kind: string }) => key.kind).sort()).toEqual(['publishable', 'secret']);
  });
});

describe('POST /api/v1/advocates/join', () => {
  it('joins a shopper once: 201 with their code and share link and the welcome email; again → 200, the same code, no figures', async () => {
    const brand = await storefrontBrand();
    const address = email();
    const joined = await t.http.post('/api/v1/advocates/join').set(brand.pk).set('Origin', STORE).send({ email: address, first_name: 'Zoé', consent: true });
    expect(joined.status).toBe(201);
    expect(joined.body.data).toEqual({ joined: true, first_name: 'Zoé', referral_code: expect.stringMatching(/^ZO/), share_link: expect.stringContaining(`${STORE}/?ref=`) });
    const advocate = await t.db('advocates').where({ brand_id: brand.brandId, email_normalized: address }).first();
    expect(advocate.consent_at).not.toBeNull();
    expect(await t.db('mail_messages').where({ brand_id: brand.brandId, template: 'advocate_welcome', advocate_id: advocate.advocate_id })).toHaveLength(1);
    const again = await t.http.post('/api/v1/advocates/join').set(brand.pk).send({ email: address.toUpperCase(), first_name: 'Other', consent: true });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ ...joined.body.data, joined: false });
    expect(Object.keys(again.body.data)).not.toContain('balance');
  });

  it('refuses bad input with a 400 naming the field and writes nothing; a flood from one IP is 429', async () => {
    const brand = await storefrontBrand();
    for (const [body, field] of [[{ email: 'nope', first_name: 'A', consent: true }, 'email'], [{ email: email(), first_name: 'A' }, 'consent'], [{ email: email(), consent: true }, 'first_name']] as const) {
      const refused = await t.http.post('/api/v1/advocates/join').set(brand.pk).send(body);
      expect([refused.status, refused.body.error]).toEqual([400, expect.stringContaining(field)]);
    }
    const strict = await startTestApp({ rateLimits: { ...t.config.rateLimits, join: 2 } }, t.db);
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await strict.http.post('/api/v1/advocates/join').set(brand.pk).send({ email: email(), first_name: 'Flood', consent: true })).status);
    expect(statuses).toEqual([201, 201, 429]);
    // A store's backend joining its customers with the secret key (a Medusa server: one address for all) is not limited per IP.
    const fromBackend = [];
    for (let i = 0; i < 3; i += 1) fromBackend.push((await strict.http.post('/api/v1/advocates/join').set(brand.headers).send({ email: email(), first_name: 'Backend', consent: true })).status);
    expect(fromBackend).toEqual([201, 201, 201]);
  });
});

describe('GET /referrals.js', () => {
  it('serves the script (under 5 KB gzipped) at a stable address and at a versioned one cached for a year', async () => {
    const stable = await t.http.get('/referrals.js');
    expect(stable.status).toBe(200);
    expect(stable.headers['content-type']).toContain('javascript');
    expect(stable.headers['cache-control']).toBe('public, max-age=300');
    const { gzipSync } = await import('node:zlib');
    expect(gzipSync(stable.text).length).toBeLessThan(5 * 1024);
    const hash = stable.headers.etag!.replace(/"/g, '');
    const versioned = await t.http.get(`/referrals.${hash}.js`);
    expect(versioned.status).toBe(200);
    expect(versioned.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await t.http.get('/referrals.0000000000000000.js')).status).toBe(404);
  });
});

import { createApiKey } from '../../core/brands/api-keys';
import { type MailDeps, deliverDueMail } from '../../server/mail/deliver-mail';
import type { MailSettings } from '../../server/mail/mail-settings';
import { createMailTransport } from '../../server/mail/mail-transport';
import { uniqueClientIp, viaProxyFrom } from '../helpers/client-ip';
import { givenAdvocate, givenBrand } from '../helpers/fixtures';
import { TEST_SECRET, type TestApp, startTestApp } from '../helpers/test-app';
import { type SmtpReceiver, startSmtpReceiver } from '../mail/smtp-receiver';

let t: TestApp;
let smtp: SmtpReceiver;
let mail: MailDeps;
beforeAll(async () => {
  t = await startTestApp();
  smtp = await startSmtpReceiver();
  const settings: MailSettings = { smtpUrl: smtp.url, from: 'program@shop.example', workerIntervalMs: 50, sendTimeoutMs: 20_000, retryScale: 0.001 };
  mail = { db: t.db, transport: createMailTransport(settings, '/nonexistent'), settings, publicUrl: 'https://referrals.example', secret: TEST_SECRET };
});
afterAll(async () => {
  mail?.transport.close();
  await smtp?.stop();
});

/** Sends what the brand's outbox holds, and answers the mail each address received. */
async function mailArrived(brandId: string): Promise<(address: string) => Array<{ subject: string; text: string }>> {
  while ((await deliverDueMail(mail, brandId)) > 0);
  return (address) =>
    smtp.received
      .filter((message) => message.to && !Array.isArray(message.to) && message.to.value[0]?.address?.toLowerCase() === address.toLowerCase())
      .map((message) => ({ subject: message.subject ?? '', text: message.text ?? '' }));
}

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
  const join = (headers: Record<string, string>, body: Record<string, unknown>) => t.http.post('/api/v1/advocates/join').set(headers).set('Origin', STORE).send({ consent: true, ...body });

  it('with the publishable key answers a new, an existing and a deactivated address alike (202, check your email), never their name or code', async () => {
    // Issue 39, finding 2: an existing advocate's address answered 200 with their stored first name, code and link, a deactivated one 409.
    const brand = await storefrontBrand();
    const existing = await givenAdvocate(t.db, brand.brandId, { first_name: 'Ann' });
    const deactivated = await givenAdvocate(t.db, brand.brandId, { first_name: 'Dee' });
    await t.http.post(`/api/v1/advocates/${deactivated.advocateId}/deactivate`).set(brand.headers).expect(200);
    const answers = [];
    for (const address of [email(), existing.email, deactivated.email]) {
      const answered = await join(brand.pk, { email: address, first_name: 'Mallory' });
      answers.push({ status: answered.status, body: answered.body });
      expect(answered.text).not.toMatch(new RegExp(`${existing.code}|${deactivated.code}|Ann|Dee|Mallory|ref=`));
    }
    expect(answers).toEqual([
      { status: 202, body: { success: true, data: { status: 'check_your_email' } } },
      { status: 202, body: { success: true, data: { status: 'check_your_email' } } },
      { status: 202, body: { success: true, data: { status: 'check_your_email' } } },
    ]);
  });

  it('sends the code by email instead: a new address the welcome, an existing one its link again at most once a day, a deactivated one nothing', async () => {
    const brand = await storefrontBrand();
    const existing = await givenAdvocate(t.db, brand.brandId, { first_name: 'Ann' });
    const deactivated = await givenAdvocate(t.db, brand.brandId, { first_name: 'Dee' });
    await t.http.post(`/api/v1/advocates/${deactivated.advocateId}/deactivate`).set(brand.headers).expect(200);
    const fresh = email();
    for (const address of [fresh, existing.email, deactivated.email]) expect((await join(brand.pk, { email: address, first_name: 'Zoé' })).status).toBe(202);
    // Issue 39, finding 3: each public join could make the brand write to the address again; now a second one within a day sends nothing.
    for (const address of [fresh, existing.email.toUpperCase()]) expect((await join(brand.pk, { email: address, first_name: 'Again' })).status).toBe(202);

    const received = await mailArrived(brand.brandId);
    const advocate = await t.db('advocates').where({ brand_id: brand.brandId, email_normalized: fresh }).first();
    expect(advocate.consent_at).not.toBeNull();
    const code: string = (await t.db('referral_codes').where({ brand_id: brand.brandId, advocate_id: advocate.advocate_id }).first()).code;
    expect(received(fresh)).toEqual([{ subject: expect.stringContaining('referral link is ready'), text: expect.stringContaining(`${STORE}/?ref=${code}`) }]);
    expect(received(fresh)[0]!.text).toContain('Hi Zoé');
    const [again, ...more] = received(existing.email);
    expect(more).toEqual([]);
    expect(again!.subject).toMatch(/^Your .* referral link$/);
    // Their own name and code, never what the join sent.
    expect(again!.text).toContain('Hi Ann,');
    expect(again!.text).toContain(`${STORE}/?ref=${existing.code}`);
    expect(again!.text).not.toContain('Zoé');
    expect(received(deactivated.email)).toEqual([]);
  });

  it('with the secret key answers the store\'s backend the code: 201 for a new address, 200 and the same code again (no email), 409 deactivated', async () => {
    const brand = await storefrontBrand();
    const address = email();
    const joined = await join(brand.headers, { email: address, first_name: 'Zoé' });
    expect(joined.status).toBe(201);
    expect(joined.body.data).toEqual({ joined: true, first_name: 'Zoé', referral_code: expect.stringMatching(/^ZO/), share_link: expect.stringContaining(`${STORE}/?ref=`) });
    const advocate = await t.db('advocates').where({ brand_id: brand.brandId, email_normalized: address }).first();
    expect(advocate.consent_at).not.toBeNull();
    const again = await join(brand.headers, { email: address.toUpperCase(), first_name: 'Other' });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ ...joined.body.data, joined: false });
    expect(await t.db('mail_messages').where({ brand_id: brand.brandId, advocate_id: advocate.advocate_id }).pluck('template')).toEqual(['advocate_welcome']);
    await t.http.post(`/api/v1/advocates/${advocate.advocate_id}/deactivate`).set(brand.headers).expect(200);
    expect((await join(brand.headers, { email: address, first_name: 'Zoé' })).status).toBe(409);
  });

  it('refuses with the publishable key a first_name carrying a link, an address or a line break (400 naming it); the secret key may send jane.doe', async () => {
    // Issue 39, finding 3: any 100 characters went into the greeting of an email the brand sends to any address.
    const brand = await storefrontBrand();
    for (const name of ['Visit evil.example', 'http://x', 'me@evil.example', 'Ann\nClick here', 'www.evil.example']) {
      const refused = await join(brand.pk, { email: email(), first_name: name });
      expect([name, refused.status, refused.body.error]).toEqual([name, 400, expect.stringContaining('first_name')]);
    }
    for (const name of ['Jean-Luc', "O'Brien", 'J. R.', 'Zoé Ünal']) expect([name, (await join(brand.pk, { email: email(), first_name: name })).status]).toEqual([name, 202]);
    expect((await join(brand.headers, { email: email(), first_name: 'jane.doe' })).status).toBe(201);
    expect(await t.db('advocates').where({ brand_id: brand.brandId }).whereIn('first_name', ['Visit evil.example', 'me@evil.example'])).toHaveLength(0);
  });

  it('refuses bad input with a 400 naming the field and writes nothing; a flood from one IP is 429', async () => {
    const brand = await storefrontBrand();
    for (const [body, field] of [[{ email: 'nope', first_name: 'A', consent: true }, 'email'], [{ email: email(), first_name: 'A' }, 'consent'], [{ email: email(), consent: true }, 'first_name']] as const) {
      const refused = await t.http.post('/api/v1/advocates/join').set(brand.pk).send(body);
      expect([refused.status, refused.body.error]).toEqual([400, expect.stringContaining(field)]);
    }
    // A client address of its own: this file's other joins, counted on the same database, are not its.
    const strict = await startTestApp({ trustProxy: true, rateLimits: { ...t.config.rateLimits, join: 2 } }, t.db);
    const client = viaProxyFrom(uniqueClientIp());
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await strict.http.post('/api/v1/advocates/join').set(brand.pk).set(client).send({ email: email(), first_name: 'Flood', consent: true })).status);
    expect(statuses).toEqual([202, 202, 429]);
    // A store's backend joining its customers with the secret key (a Medusa server: one address for all) is not limited per IP.
    const fromBackend = [];
    for (let i = 0; i < 3; i += 1) fromBackend.push((await strict.http.post('/api/v1/advocates/join').set(brand.headers).set(client).send({ email: email(), first_name: 'Backend', consent: true })).status);
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

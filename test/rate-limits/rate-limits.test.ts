import { DEFAULT_RATE_LIMITS, type RateLimits } from '../../server/config';
import { uniqueClientIp, viaProxyFrom } from '../helpers/client-ip';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { GENEROUS_LIMITS, startTestApp } from '../helpers/test-app';
import { testDatabase } from '../helpers/test-database';

/** An app behind a trusted proxy, so each test can speak from its own client IP. */
async function appWithLimits(rateLimits: RateLimits) {
  return startTestApp({ trustProxy: true, rateLimits }, await testDatabase());
}

async function premierBrandWithCode() {
  const db = await testDatabase();
  const brand = await givenBrand(db, { plan: 'premier' });
  const advocate = await givenAdvocate(db, brand.brandId);
  return { brand, advocate };
}

let emailCounter = 0;
const uniqueEmail = () => `referee${++emailCounter}-${Date.now()}@example.com`;

describe('rate limits per client IP and endpoint', () => {
  it.each([
    ['claim', '/api/v1/track/claim', (code: string) => ({ referral_code: code, email: uniqueEmail(), raw_value: 50 })],
    ['conversion', '/api/v1/track/conversion', (code: string) => ({ email: uniqueEmail(), order_id: uniqueOrderId(), order_value: 80, referral_code: code })],
  ] as const)('refuses the 21st %s from one IP within the hour with 429 while another IP still passes', async (_name, path, body) => {
    const t = await appWithLimits(DEFAULT_RATE_LIMITS);
    const { brand, advocate } = await premierBrandWithCode();
    const crowded = uniqueClientIp();
    const send = (ip: string) => t.http.post(path).set({ ...brand.headers, ...viaProxyFrom(ip) }).send(body(advocate.code));

    for (let i = 1; i <= 20; i += 1) expect((await send(crowded)).status).toBe(201);
    const refused = await send(crowded);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ success: false, error: expect.stringMatching(/at most 20 requests per hour from one IP/), code: 'rate_limited' });
    expect((await send(uniqueClientIp())).status).toBe(201);
  });

  it('sends RateLimit-Limit, -Remaining and -Reset on allowed answers and adds Retry-After to the 429', async () => {
    const t = await appWithLimits({ ...GENEROUS_LIMITS, refund: 2 });
    const { brand } = await premierBrandWithCode();
    const ip = uniqueClientIp();
    const refund = () =>
      t.http
        .post('/api/v1/track/refund')
        .set({ ...brand.headers, ...viaProxyFrom(ip) })
        .send({ order_id: 'no-such-order', refund_amount: 1, is_full_refund: false });

    const first = await refund();
    expect(first.status).toBe(404); // limited or not, the request itself was answered
    expect(first.headers['ratelimit-limit']).toBe('2');
    expect(first.headers['ratelimit-remaining']).toBe('1');
    expect(Number(first.headers['ratelimit-reset'])).toBeGreaterThan(3500);
    expect(Number(first.headers['ratelimit-reset'])).toBeLessThanOrEqual(3600);

    expect((await refund()).headers['ratelimit-remaining']).toBe('0');

    const refused = await refund();
    expect(refused.status).toBe(429);
    expect(refused.headers['ratelimit-limit']).toBe('2');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(refused.headers['retry-after']).toBe(refused.headers['ratelimit-reset']);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3500);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(3600);
  });

  // Each endpoint has its own counter and the spec's window: per minute or per hour.
  it.each([
    ['/api/v1/track/visit', 'visit', 60],
    ['/api/v1/track/claim', 'claim', 3600],
    ['/api/v1/track/conversion', 'conversion', 3600],
    ['/api/v1/track/refund', 'refund', 3600],
    ['/api/v1/track/check-eligibility', 'eligibility', 60],
    ['/api/v1/convert', 'convert', 60],
  ] as const)('limits %s by its own %s counter over a %i-second window', async (path, endpoint, windowSeconds) => {
    const t = await appWithLimits({ ...GENEROUS_LIMITS, [endpoint]: 1 });
    const ip = uniqueClientIp();
    // Counted before authentication, so even unauthenticated requests use up the limit.
    const first = await t.http.post(path).set(viaProxyFrom(ip)).send({});
    expect(first.status).toBe(401);
    expect(Number(first.headers['ratelimit-reset'])).toBeGreaterThan(windowSeconds - 5);
    expect(Number(first.headers['ratelimit-reset'])).toBeLessThanOrEqual(windowSeconds);
    expect((await t.http.post(path).set(viaProxyFrom(ip)).send({})).status).toBe(429);

    const otherPath = path === '/api/v1/track/refund' ? '/api/v1/track/conversion' : '/api/v1/track/refund';
    expect((await t.http.post(otherPath).set(viaProxyFrom(ip)).send({})).status).toBe(401);
  });

  it('refuses a limited client before reading its body or checking its key', async () => {
    const t = await appWithLimits({ ...GENEROUS_LIMITS, conversion: 1 });
    const ip = uniqueClientIp();
    await t.http.post('/api/v1/track/conversion').set(viaProxyFrom(ip)).send({});
    const refused = await t.http
      .post('/api/v1/track/conversion')
      .set({ ...viaProxyFrom(ip), 'Content-Type': 'application/json' })
      .send('{not json');
    expect(refused.status).toBe(429);
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY is on, so a client cannot dodge its limit by spoofing it', async () => {
    const t = await startTestApp({ trustProxy: false, rateLimits: { ...GENEROUS_LIMITS, conversion: 2 } }, await testDatabase());
    // Every request comes from the loopback socket; the header names a different client each time.
    const send = () => t.http.post('/api/v1/track/conversion').set('X-Forwarded-For', uniqueClientIp()).send({});
    await send();
    await send();
    expect((await send()).status).toBe(429);
  });

  it('behind the trusted proxy counts the address the proxy saw, not entries the client prepended', async () => {
    const t = await appWithLimits({ ...GENEROUS_LIMITS, conversion: 2 });
    const client = uniqueClientIp();
    // The proxy appends the connecting address to whatever X-Forwarded-For the client sent.
    const send = () =>
      t.http
        .post('/api/v1/track/conversion')
        .set({ 'X-Forwarded-For': `${uniqueClientIp()}, ${client}`, 'X-Forwarded-Proto': 'https' })
        .send({});
    expect((await send()).status).toBe(401);
    expect((await send()).status).toBe(401);
    expect((await send()).status).toBe(429);
  });
});

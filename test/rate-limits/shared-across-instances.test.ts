import { DEFAULT_RATE_LIMITS } from '../../server/config';
import { uniqueClientIp, viaProxyFrom } from '../helpers/client-ip';
import { givenAdvocate, givenBrand } from '../helpers/fixtures';
import { type RealPostgres, realPostgres } from '../helpers/real-postgres';
import { startTestApp } from '../helpers/test-app';

// Always on a real PostgreSQL (the embedded database keeps counters in memory, per process).
let postgres: RealPostgres;
beforeAll(async () => {
  postgres = await realPostgres();
});
afterAll(() => postgres?.close());

// These counts must be exact the moment another instance made them: sync interval 0, each request
// decided on the shared total (test/rate-limits/synced-counts.test.ts covers the default interval).
const EXACT = { trustProxy: true, rateLimits: DEFAULT_RATE_LIMITS, rateLimitSyncMs: 0 };

describe('rate limits on PostgreSQL', () => {
  it('share one count between two server instances on one database: after 11 claims on one and 9 on the other, the 21st is refused by both', async () => {
    const config = EXACT;
    const first = await startTestApp(config, postgres.db);
    const second = await startTestApp(config, postgres.db);
    const brand = await givenBrand(postgres.db, { plan: 'premier' });
    const advocate = await givenAdvocate(postgres.db, brand.brandId);
    const ip = uniqueClientIp();
    let sent = 0;
    const claim = (instance: typeof first) =>
      instance.http
        .post('/api/v1/track/claim')
        .set({ ...brand.headers, ...viaProxyFrom(ip) })
        .send({ referral_code: advocate.code, email: `shared${++sent}-${Date.now()}@example.com`, raw_value: 40 });

    for (let i = 0; i < 11; i += 1) expect((await claim(first)).status).toBe(201);
    for (let i = 0; i < 9; i += 1) expect((await claim(second)).status).toBe(201);
    const refusedBySecond = await claim(second);
    expect(refusedBySecond.status).toBe(429);
    expect(refusedBySecond.headers['ratelimit-remaining']).toBe('0');
    expect((await claim(first)).status).toBe(429);
  });

  it('counts concurrent requests exactly: of 30 at once across two instances, 20 pass', async () => {
    const config = EXACT;
    const instances = [await startTestApp(config, postgres.db), await startTestApp(config, postgres.db)];
    const ip = uniqueClientIp();
    // Unauthenticated refunds: counted before authentication, answered 401 when allowed.
    const statuses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => instances[i % 2]!.http.post('/api/v1/track/refund').set(viaProxyFrom(ip)).send({})),
    ).then((responses) => responses.map((response) => response.status));
    expect(statuses.filter((status) => status === 401)).toHaveLength(20);
    expect(statuses.filter((status) => status === 429)).toHaveLength(10);
  });
});

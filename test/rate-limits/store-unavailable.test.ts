import { createDatabase } from '../../core/db/create-database';
import { uniqueClientIp, viaProxyFrom } from '../helpers/client-ip';
import { GENEROUS_LIMITS, startTestApp } from '../helpers/test-app';

// A PostgreSQL that refuses every connection: nothing listens on port 1.
const unreachable = createDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none' });
afterAll(() => unreachable.destroy());

describe('rate limits when PostgreSQL cannot be reached', () => {
  it('still limits, counting in memory per instance: the request it lets through gets the outage answer (503 database_unavailable with Retry-After), the next a 429', async () => {
    const t = await startTestApp({ trustProxy: true, rateLimits: { ...GENEROUS_LIMITS, conversion: 1 } }, unreachable);
    const ip = uniqueClientIp();
    const send = () => t.http.post('/api/v1/track/conversion').set({ ...viaProxyFrom(ip), 'X-API-Key': 'rk_x', 'X-Brand-ID': '00000000-0000-4000-8000-000000000000' }).send({});
    // Allowed by the in-memory count; the key look-up then cannot reach the database: an outage
    // the caller may retry (issue 10), not a 500 it would take for a bug.
    const allowed = await send();
    expect(allowed.status).toBe(503);
    expect(allowed.headers['retry-after']).toBe('5'); // the documented wait (docs/api/rest.md, *Errors*)
    expect([allowed.body.error, allowed.body.code]).toContain('database_unavailable'); // the stable code, wherever the envelope puts it
    expect((await send()).status).toBe(429);
  });
});

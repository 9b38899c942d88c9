import { createDatabase } from '../../core/db/create-database';
import { uniqueClientIp, viaProxyFrom } from '../helpers/client-ip';
import { GENEROUS_LIMITS, startTestApp } from '../helpers/test-app';

// A PostgreSQL that refuses every connection: nothing listens on port 1.
const unreachable = createDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none' });
afterAll(() => unreachable.destroy());

describe('rate limits when PostgreSQL cannot be reached', () => {
  it('still limits, counting in memory per instance, instead of failing every request', async () => {
    const t = await startTestApp({ trustProxy: true, rateLimits: { ...GENEROUS_LIMITS, conversion: 1 } }, unreachable);
    const ip = uniqueClientIp();
    const send = () => t.http.post('/api/v1/track/conversion').set({ ...viaProxyFrom(ip), 'X-API-Key': 'rk_x', 'X-Brand-ID': '00000000-0000-4000-8000-000000000000' }).send({});
    // Allowed by the in-memory count; the key look-up then fails on the database (500).
    expect((await send()).status).toBe(500);
    expect((await send()).status).toBe(429);
  });
});

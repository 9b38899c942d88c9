import { createDatabase } from '../../core/db/create-database';
import { flushRateLimits } from '../../server/middleware/rate-limit';
import { uniqueClientIp, viaProxyFrom } from '../helpers/client-ip';
import { type RealPostgres, realPostgres } from '../helpers/real-postgres';
import { GENEROUS_LIMITS, type TestApp, startTestApp } from '../helpers/test-app';

// Counts decided in memory and shared in the background: always on a real PostgreSQL.
let postgres: RealPostgres;
beforeAll(async () => {
  postgres = await realPostgres();
});
afterAll(() => postgres?.close());

/** An instance allowing `refund` requests per hour (and `visit` per minute), sharing its counts every `syncMs`. */
function instance(limits: { refund?: number; visit?: number }, rateLimitSyncMs: number, db = postgres.db) {
  return startTestApp({ trustProxy: true, rateLimits: { ...GENEROUS_LIMITS, ...limits }, rateLimitSyncMs }, db);
}

// Unknown key: counted before authentication, answered 401 when allowed (503 without a database), 429 when not.
const UNKNOWN_KEY = { 'X-API-Key': 'rk_x', 'X-Brand-ID': '00000000-0000-4000-8000-000000000000' };
const refund = (t: TestApp, ip: string) => t.http.post('/api/v1/track/refund').set({ ...viaProxyFrom(ip), ...UNKNOWN_KEY }).send({});
const visit = (t: TestApp, ip: string) => t.http.post('/api/v1/track/visit').set(viaProxyFrom(ip)).send({});

async function statusesOf(requests: Array<Promise<{ status: number }>>): Promise<number[]> {
  return (await Promise.all(requests)).map((response) => response.status);
}

const sharedCount = async (key: string) => (await postgres.db('rate_limits').where({ key }).first<{ points: number; expire: string } | undefined>()) ?? null;

/** A longer interval than any test here lasts: only an explicit flush (what shutdown does) shares counts. */
const NO_BACKGROUND_SYNC_MS = 600_000;

describe('rate limits counted in memory and shared through PostgreSQL', () => {
  it('admits exactly the limit from one instance, even when the requests come at once', async () => {
    const t = await instance({ refund: 5 }, 200);
    const client = uniqueClientIp();
    const statuses = await statusesOf(Array.from({ length: 8 }, () => refund(t, client)));
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(3);
  });

  it('two instances admit at most the limit plus what the other admitted before a sync; after a sync both refuse', async () => {
    const first = await instance({ refund: 5 }, NO_BACKGROUND_SYNC_MS);
    const second = await instance({ refund: 5 }, NO_BACKGROUND_SYNC_MS);
    const client = uniqueClientIp();
    // Neither has heard of the other's 3: 6 pass, one past the limit of 5, within the bound (the other's 3).
    expect(await statusesOf([refund(first, client), refund(first, client), refund(first, client)])).toEqual([401, 401, 401]);
    expect(await statusesOf([refund(second, client), refund(second, client), refund(second, client)])).toEqual([401, 401, 401]);

    await flushRateLimits(first.app); // shares 3, reads back 3
    await flushRateLimits(second.app); // shares 3, reads back 6
    await flushRateLimits(first.app); // nothing new to share: first has not heard of the 6 yet
    expect((await refund(second, client)).status).toBe(429);
    expect((await refund(first, client)).status).toBe(401); // its 4th of its own, decided on 3 seen + 1
    await flushRateLimits(first.app); // shares its 4th, reads back 7 (second's refused one is not shared yet)
    expect((await refund(first, client)).status).toBe(429);
    // 7 admitted of a limit of 5: the other instance's 3 before the sync bound the excess (2).
    await flushRateLimits(first.app);
    await flushRateLimits(second.app);
    expect((await sharedCount(`refund:${client}`))?.points).toBe(9); // refused requests count too, as before
  });

  it('shares counts in the background: an instance deciding on the shared total refuses at once what another filled', async () => {
    const filler = await instance({ refund: 3 }, 20);
    const exact = await instance({ refund: 3 }, 0);
    const client = uniqueClientIp();
    expect(await statusesOf([refund(filler, client), refund(filler, client), refund(filler, client)])).toEqual([401, 401, 401]);
    // No flush here: wait for the filler's own sync to land.
    for (let tries = 0; (await sharedCount(`refund:${client}`))?.points !== 3; tries += 1) {
      expect(tries).toBeLessThan(500);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await refund(exact, client)).status).toBe(429);
  });

  it('shares the last counts at shutdown: after the flush another instance sees them', async () => {
    const closing = await instance({ refund: 5 }, NO_BACKGROUND_SYNC_MS);
    const client = uniqueClientIp();
    await statusesOf([refund(closing, client), refund(closing, client), refund(closing, client)]);
    await flushRateLimits(closing.app);
    const successor = await instance({ refund: 5 }, 0);
    expect(await statusesOf([refund(successor, client), refund(successor, client)])).toEqual([401, 401]);
    expect((await refund(successor, client)).status).toBe(429);
  });

  describe('when the window rolls over', () => {
    afterEach(() => jest.useRealTimers());

    it('admits again, in memory and in the shared row, which starts again at the first request after', async () => {
      // Only Date is faked: the clock jumps past the minute while timers and sockets run for real.
      jest.useFakeTimers({ doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
      const start = Date.now();
      const t = await instance({ visit: 2 }, NO_BACKGROUND_SYNC_MS);
      const client = uniqueClientIp();
      expect(await statusesOf([visit(t, client), visit(t, client), visit(t, client)])).toEqual([401, 401, 429]);
      await flushRateLimits(t.app);
      expect(await sharedCount(`visit:${client}`)).toEqual({ key: `visit:${client}`, points: 3, expire: String(start + 60_000) });

      jest.setSystemTime(start + 60_000);
      const again = await visit(t, client);
      expect(again.status).toBe(401);
      expect(again.headers['ratelimit-remaining']).toBe('1');
      expect(again.headers['ratelimit-reset']).toBe('60');
      await flushRateLimits(t.app);
      expect(await sharedCount(`visit:${client}`)).toEqual({ key: `visit:${client}`, points: 1, expire: String(start + 120_000) });
    });
  });

  describe('when PostgreSQL cannot be reached', () => {
    // Nothing listens on port 1.
    const unreachable = createDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none' });
    afterAll(() => unreachable.destroy());

    it('keeps limiting in memory and never fails a request for it, before and after a failed sync', async () => {
      const t = await instance({ refund: 2 }, 20, unreachable);
      const client = uniqueClientIp();
      const statuses = await statusesOf([refund(t, client), refund(t, client), refund(t, client)]);
      // Allowed ones reach authentication, which answers the outage (503 database_unavailable); the third is limited.
      expect(statuses).toEqual([503, 503, 429]);
      await expect(flushRateLimits(t.app)).resolves.toBeUndefined(); // the sync fails; the counts stay
      const later = await refund(t, client);
      expect(later.status).toBe(429);
      expect(later.body.code).toBe('rate_limited');
    });
  });
});

import pino from 'pino';
import { type CacheInvalidation, startCacheInvalidation } from '../../server/cache-invalidation';
import { givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type RealPostgres, realPostgres } from '../helpers/real-postgres';
import { TEST_SECRET, type TestApp, startTestApp } from '../helpers/test-app';
import { CLI, processEnv, spawnProcess } from '../operations/processes';
import { postgresUrlOf } from './postgres-url';

// A TTL no test outlives: anything refused below was refused because the change was heard.
const LONG_TTL_SECONDS = 600;

let postgres: RealPostgres;
let databaseUrl: string;
let server: TestApp;
let invalidation: CacheInvalidation;
beforeAll(async () => {
  // A database of its own: every brand change on a shared one notifies this listener, and a
  // notification during a look-up keeps that look-up from being cached (the cache's generation).
  postgres = await realPostgres({ ownDatabase: true });
  databaseUrl = postgresUrlOf(postgres.db);
  server = await startTestApp({ apiKeyCacheSeconds: LONG_TTL_SECONDS }, postgres.db);
  invalidation = startCacheInvalidation({ databaseUrl, logger: pino({ level: 'silent' }) });
  await invalidation.ready;
}, 30_000);
afterAll(async () => {
  await invalidation?.stop();
  await postgres?.close();
});

const conversion = () => ({ email: 'a@example.com', order_id: uniqueOrderId(), order_value: 10 });
const convert = (headers: Record<string, string>) => server.http.post('/api/v1/track/conversion').set(headers).send(conversion());

/** Another process on the same database, as an operator's shell would start it. */
async function inAnotherProcess(command: string[]): Promise<void> {
  const child = spawnProcess(command, processEnv({ DATABASE_URL: databaseUrl, KEY_ENCRYPTION_SECRET: TEST_SECRET }));
  const { code } = await child.exited;
  if (code !== 0) throw new Error(`${command.join(' ')} exited ${code}:\n${child.stdout()}\n${child.stderr()}`);
}

/** Milliseconds from now until a request with these headers gets `status`; fails after `withinMs`. */
async function msUntilStatus(headers: Record<string, string>, status: number, withinMs: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    const response = await convert(headers);
    if (response.status === status) return Date.now() - start;
    if (Date.now() - start > withinMs) throw new Error(`still ${response.status} after ${withinMs} ms (expected ${status})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('API-key cache invalidation across processes (PostgreSQL LISTEN/NOTIFY)', () => {
  it('keeps serving a cached key past the short fallback TTL while it hears changes', async () => {
    const brand = await givenBrand(postgres.db);
    expect((await convert(brand.headers)).status).toBe(200);
    // Revoked by bare SQL, which sends no NOTIFY: only the cache can still say 200.
    await postgres.db('api_keys').where({ brand_id: brand.brandId, key_id: brand.keyId }).update({ revoked_at: postgres.db.fn.now() });
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect((await convert(brand.headers)).status).toBe(200);
  });

  it('refuses a key revoked from the CLI in another process within 1 s, with a 10-minute cache TTL', async () => {
    const brand = await givenBrand(postgres.db);
    expect((await convert(brand.headers)).status).toBe(200);
    await inAnotherProcess(['node', CLI, 'key', 'revoke', '--brand', brand.brandId, '--key', brand.keyId, '--json']);
    expect(await msUntilStatus(brand.headers, 401, 1_000)).toBeLessThanOrEqual(1_000);
  });

  it('refuses a brand made inactive by another process within 1 s, with a 10-minute cache TTL', async () => {
    const brand = await givenBrand(postgres.db);
    expect((await convert(brand.headers)).status).toBe(200);
    const script =
      `const { createDatabase } = require('./dist/core/db/create-database');` +
      `const { updateBrand } = require('./dist/core/brands/brand');` +
      `const db = createDatabase({ databaseUrl: process.env.DATABASE_URL });` +
      `updateBrand(db, '${brand.brandId}', { status: 'uninstalled' }).then(() => db.destroy());`;
    await inAnotherProcess(['node', '-e', script]);
    expect(await msUntilStatus(brand.headers, 403, 1_000)).toBeLessThanOrEqual(1_000);
  });

  it('listens again after its connection is killed, and hears the next revocation', async () => {
    const brand = await givenBrand(postgres.db);
    expect((await convert(brand.headers)).status).toBe(200);
    const { rowCount } = await postgres.db.raw('select pg_terminate_backend(pid) from pg_stat_activity where application_name = ?', [
      `referrals-cache-invalidation-${process.pid}`,
    ]);
    expect(rowCount).toBe(1);
    // Reconnected (first retry after 250 ms) and listening: the key is cached again for long.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await postgres.db.raw('select 1 from pg_stat_activity where application_name = ?', [`referrals-cache-invalidation-${process.pid}`])).rowCount).toBe(1);
    expect((await convert(brand.headers)).status).toBe(200);
    await inAnotherProcess(['node', CLI, 'key', 'revoke', '--brand', brand.brandId, '--key', brand.keyId, '--json']);
    expect(await msUntilStatus(brand.headers, 401, 1_000)).toBeLessThanOrEqual(1_000);
  });
});

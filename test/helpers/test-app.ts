import type { Knex } from 'knex';
import pino from 'pino';
import supertest from 'supertest';
import { createApp, type App } from '../../server/app';
import { type Config, type RateLimits } from '../../server/config';
import type { ConnectorParts } from '../../server/http';
import { trackStartedApp } from './started-apps';
import { testDatabase } from './test-database';
import { type RealPostgres, realPostgres } from './real-postgres';

export const TEST_SECRET = 'test-key-encryption-secret';

/** Rate limits high enough that only the tests about limits ever meet them. */
export const GENEROUS_LIMITS: RateLimits = { visit: 1e6, claim: 1e6, conversion: 1e6, refund: 1e6, eligibility: 1e6, convert: 1e6, rewards: 1e6, review: 1e6, signIn: 1e6, join: 1e6 };

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    port: 0,
    databaseUrl: process.env.TEST_DATABASE_URL,
    dataDir: '/nonexistent-test-data-dir',
    trustProxy: false,
    keyEncryptionSecret: TEST_SECRET,
    logLevel: 'silent',
    rateLimits: GENEROUS_LIMITS,
    // A sign-in's background warm-up writes 366 days per brand and would race the pages a test
    // reads; dashboard-http.test.ts turns it on for the warm-up's own test.
    warmReportsOnSignIn: false,
    ...overrides,
  };
}

export interface TestApp {
  app: App;
  db: Knex;
  config: Config;
  http: ReturnType<typeof supertest>;
}

/**
 * A Koa app on the test database (real PostgreSQL under TEST_DATABASE_URL, else PGlite), with every
 * connector configured from the environment unless the test hands its own parts.
 */
export async function startTestApp(overrides: Partial<Config> = {}, db?: Knex, connectors?: ConnectorParts[]): Promise<TestApp> {
  const database = db ?? (await testDatabase());
  const config = testConfig(overrides);
  const app = createApp({ db: database, config, logger: pino({ level: 'silent' }), connectors });
  trackStartedApp(app, database);
  return { app, db: database, config, http: supertest(app.callback()) };
}

/**
 * For a file whose tests need a real PostgreSQL (races across connections): starts the app on one
 * before the file's tests, hands it to `use`, and drops the scratch database after them.
 */
export function useTestAppOnRealPostgres(use: (app: TestApp) => void): void {
  let postgres: RealPostgres | undefined;
  beforeAll(async () => {
    postgres = await realPostgres();
    use(await startTestApp({}, postgres.db));
  });
  afterAll(() => postgres?.close());
}

import { type Database, createDatabase } from '../core/db/create-database';
import { BENCH_KEY_SECRET, type BenchTenant, benchDatabaseUrl, provisionTenant, recreateDatabase } from './bench-database';
import type { Scenario } from './load-scenario';
import { type ServerProcess, startServer } from './server-process';
import { type SmtpSink, startSmtpSink } from './smtp-sink';

const UNLIMITED = '1000000000';

export interface BenchSetup {
  databaseUrl: string;
  db: Database;
  tenant: BenchTenant;
  server: ServerProcess;
  /** Where the servers send program emails (SMTP_URL). */
  smtp: SmtpSink;
  /** Another server on the same database and settings (WEB_CONCURRENCY, …); stop it before the next. */
  startServer(env: Record<string, string>): Promise<ServerProcess>;
  /** The PostgreSQL backends serving the bench database, whose CPU a scenario reports. */
  backends(): Promise<number[]>;
  /** A scenario authenticated as the tenant. */
  scenario(
    name: string,
    path: string,
    connections: number,
    expectedStatus: Scenario['expectedStatus'],
    nextRequest: Scenario['nextRequest'],
    seconds: number,
    headers?: Record<string, string>,
  ): Scenario;
  close(): Promise<void>;
}

/** A fresh bench database with one tenant, and the real server on it with the rate limits raised. */
export async function setUpBench(advocates: number, progress: (message: string) => void): Promise<BenchSetup> {
  const databaseUrl = benchDatabaseUrl();
  progress(`resetting database ${new URL(databaseUrl).pathname.slice(1)}`);
  await recreateDatabase(databaseUrl);
  const db = createDatabase({ databaseUrl, poolMax: 2 });
  const tenant = await provisionTenant(db, advocates);
  progress(`provisioned brand ${tenant.brandId} with ${advocates} advocates`);
  // Program emails are on (the brand's defaults) and go through a real SMTP exchange, as in production.
  const smtp = await startSmtpSink();
  const serverEnv = {
    SMTP_URL: smtp.url,
    DATABASE_URL: databaseUrl,
    KEY_ENCRYPTION_SECRET: BENCH_KEY_SECRET,
    RATE_LIMIT_VISIT: UNLIMITED,
    RATE_LIMIT_CLAIM: UNLIMITED,
    RATE_LIMIT_CONVERSION: UNLIMITED,
    RATE_LIMIT_REFUND: UNLIMITED,
    RATE_LIMIT_ELIGIBILITY: UNLIMITED,
    RATE_LIMIT_CONVERT: UNLIMITED,
  };
  const server = await startServer(serverEnv);
  progress(`server pid ${server.pid} on ${server.url}`);
  const tenantHeaders = { 'x-api-key': tenant.apiKey, 'x-brand-id': tenant.brandId };
  return {
    databaseUrl,
    db,
    tenant,
    server,
    smtp,
    startServer: (env) => startServer({ ...serverEnv, ...env }),
    backends: async () =>
      (await db.raw('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).rows.map((row: { pid: number }) => row.pid),
    scenario: (name, path, connections, expectedStatus, nextRequest, seconds, headers = tenantHeaders) => ({
      name, path, connections, durationSeconds: seconds, headers, expectedStatus, nextRequest,
    }),
    close: async () => {
      await server.stop();
      await db.destroy();
      await smtp.close();
    },
  };
}

/** A short run to warm the JIT and the pools, then statistics as autovacuum keeps them on a running database. */
export async function warmUp<T>(setup: BenchSetup, run: () => Promise<T>): Promise<T> {
  const result = await run();
  // Plans made while the new tables were empty (cached foreign-key checks among them) would
  // otherwise keep scanning for a minute or more, until autovacuum analyses the tables.
  await setup.db.raw('ANALYZE');
  return result;
}

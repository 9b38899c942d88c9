import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import knex, { type Knex } from 'knex';
import { freePort } from '../helpers/free-port';
import { LOCAL_POSTGRES_URL } from '../helpers/real-postgres';
import { MedusaStoreApi } from './medusa-store-api';
import { packPlugin } from './plugin-package';

const run = promisify(execFile);

/** The Medusa 2.21 store under test/medusa-app: its own dependencies, installed by `npm ci --prefix test/medusa-app`. */
export const APP_DIR = path.resolve(__dirname, '../medusa-app');
const MEDUSA_CLI = path.join(APP_DIR, 'node_modules/@medusajs/cli/cli.js');
const ADMIN = { email: 'admin@medusa-test.dev', password: 'medusa-test-secret' };
const BOOT_TIMEOUT_MS = 120_000;

export interface ReferralOptions {
  serviceUrl: string;
  brandId: string;
  apiKey: string;
}

export interface MedusaApp {
  api: MedusaStoreApi;
  /** Medusa's own database (the plugin's referral_delivery table lives there). */
  db: Knex;
  start(): Promise<void>;
  /** SIGKILL: no graceful shutdown, as in a crash. */
  crash(): Promise<void>;
  /** Stops Medusa and drops its database. */
  destroy(): Promise<void>;
  /** What Medusa printed, for failure messages. */
  output(): string;
}

function assertInstalled(): void {
  if (!fs.existsSync(path.join(APP_DIR, 'node_modules/@medusajs/medusa/package.json')) || !fs.existsSync(MEDUSA_CLI)) {
    throw new Error(`The Medusa test app is not installed: run \`npm ci --prefix test/medusa-app\` (.ci/run does) before these tests`);
  }
}

/** Installs the plugin from its packed tarball, as `npm install <tarball>` would unpack it. */
async function installPlugin(): Promise<void> {
  const tarball = await packPlugin();
  const target = path.join(APP_DIR, 'node_modules/@referrals/medusa-plugin');
  fs.rmSync(target, { recursive: true, force: true });
  fs.mkdirSync(target, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
}

/**
 * A fresh Medusa 2.21 store on its own PostgreSQL database: the plugin installed from its built
 * package, configured by test/medusa-app/medusa-config.js (the block in docs/merchants/medusa.md), migrated, an admin
 * user, then `medusa start`. Anything missing fails the test with the reason.
 */
export async function createMedusaApp(options: ReferralOptions): Promise<MedusaApp> {
  assertInstalled();
  await installPlugin();

  const server = knex({ client: 'pg', connection: LOCAL_POSTGRES_URL, pool: { min: 0, max: 1 } });
  const name = `medusa_it_${process.pid}_${randomBytes(4).toString('hex')}`;
  try {
    await server.raw(`CREATE DATABASE ${name}`);
  } catch (error) {
    await server.destroy();
    throw new Error(`The Medusa test app needs PostgreSQL at ${LOCAL_POSTGRES_URL}: ${(error as Error).message}`);
  }
  const databaseUrl = new URL(LOCAL_POSTGRES_URL);
  databaseUrl.pathname = `/${name}`;
  const port = await freePort();
  const env = {
    ...process.env,
    NODE_ENV: 'development',
    DATABASE_URL: databaseUrl.toString(),
    REFERRALS_SERVICE_URL: options.serviceUrl,
    REFERRALS_BRAND_ID: options.brandId,
    REFERRALS_API_KEY: options.apiKey,
    REFERRALS_RETRY_BASE_DELAY_MS: '500',
    REFERRALS_RETRY_MAX_DELAY_MS: '2000',
    MEDUSA_DISABLE_TELEMETRY: 'true',
  };
  const cli = (...args: string[]) => run(process.execPath, [MEDUSA_CLI, ...args], { cwd: APP_DIR, env, maxBuffer: 64 * 1024 * 1024 });
  await cli('db:migrate');
  await cli('user', '-e', ADMIN.email, '-p', ADMIN.password);

  const db = knex({ client: 'pg', connection: databaseUrl.toString(), pool: { min: 0, max: 2 } });
  const api = new MedusaStoreApi(`http://127.0.0.1:${port}`);
  let child: ChildProcess | null = null;
  let log = '';

  const stopChild = async (signal: NodeJS.Signals) => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill(signal);
    await exited;
  };

  const app: MedusaApp = {
    api,
    db,
    output: () => log.slice(-4000),
    async start() {
      const started = spawn(process.execPath, [MEDUSA_CLI, 'start', '-p', String(port), '-H', '127.0.0.1'], { cwd: APP_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
      child = started;
      started.stdout!.on('data', (chunk) => (log += chunk));
      started.stderr!.on('data', (chunk) => (log += chunk));
      const deadline = Date.now() + BOOT_TIMEOUT_MS;
      for (;;) {
        if (started.exitCode !== null) throw new Error(`medusa start exited with ${started.exitCode}:\n${log.slice(-4000)}`);
        const healthy = await fetch(`${api.baseUrl}/health`).then((response) => response.ok, () => false);
        if (healthy) break;
        if (Date.now() > deadline) throw new Error(`medusa start was not healthy within ${BOOT_TIMEOUT_MS / 1000} s:\n${log.slice(-4000)}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      await api.logIn(ADMIN.email, ADMIN.password);
    },
    crash: () => stopChild('SIGKILL'),
    async destroy() {
      await stopChild('SIGTERM');
      await db.destroy();
      await server.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await server.destroy();
    },
  };
  return app;
}

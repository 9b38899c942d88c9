import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { createDatabase } from '../../core/db/create-database';
import { migrateToLatest } from '../../core/db/migrate';
import { TEST_PROCESS_NODE_FLAGS } from '../helpers/child-script';
import { COMPILED } from '../helpers/compiled-build';
import { fillWithMigratedDatabase } from '../helpers/embedded-template';
import { type RealPostgres, realPostgres } from '../helpers/real-postgres';
import { postgresUrlOf } from '../performance-features/postgres-url';
import { scratchDir } from '../helpers/scratch-space';

export { freePort } from '../helpers/free-port';

export const ROOT = path.resolve(__dirname, '../..');
/**
 * The compiled CLI and server (globalSetup builds them: test/helpers/compiled-build.ts), as
 * `npm run start:prod` runs them. The tests of the TypeScript launchers themselves (`npm start`,
 * the `referrals` bin) are test/e2e/quick-start.test.ts and test/cli/referrals-cli.test.ts.
 */
export const CLI = COMPILED.cli;
/** `node` as the processes tests start run it (TEST_PROCESS_NODE_FLAGS). */
export const NODE = ['node', ...TEST_PROCESS_NODE_FLAGS];
export const SERVER_COMMAND = [...NODE, COMPILED.server];
/** The installed `referrals` bin, as `npx referrals` runs it: the TypeScript CLI through tsx. */
export const BIN = path.join(ROOT, 'server/cli/referrals.cjs');

/** A process of ours, with everything it printed and how it ended. */
export interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnProcess(command: string[], env: NodeJS.ProcessEnv, options: { detached?: boolean } = {}): Spawned {
  const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/**
 * The environment of a spawned server or CLI: `overrides` over the embedded database in a DATA_DIR
 * of its own. Never the checkout's `./.data`, a developer's own database: a server on PostgreSQL
 * still keeps its key-encryption secret in DATA_DIR when KEY_ENCRYPTION_SECRET is not set.
 */
export function processEnv(overrides: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const dataDir = overrides.DATA_DIR ?? tempDataDir();
  return { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'warn', NODE_OPTIONS: '', ...overrides, DATA_DIR: dataDir };
}

const tempDirs: string[] = [];

/** A fresh DATA_DIR, inside a folder of its own (room for a symlink beside it); see removeScratch. */
export function tempDataDir(): string {
  const folder = scratchDir('referrals-ops-');
  tempDirs.push(folder);
  const dataDir = path.join(folder, 'data');
  fs.mkdirSync(dataDir);
  return dataDir;
}

/** A DATA_DIR holding a copy of the migrated template: a first start creates and migrates one, seconds of CPU. */
export async function migratedDataDir(): Promise<string> {
  const dataDir = tempDataDir();
  await fillWithMigratedDatabase(dataDir);
  return dataDir;
}

const scratchDatabases: RealPostgres[] = [];

/** Removes the DATA_DIRs made so far and drops the PostgreSQL databases serverDatabase made. */
export async function removeScratch(): Promise<void> {
  for (const folder of tempDirs.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
  await Promise.all(scratchDatabases.splice(0).map((postgres) => postgres.close()));
}

/**
 * The database of a spawned server, as env vars, and a way for the test to open it while that
 * server is not running: under TEST_DATABASE_URL a database of its own on that server (dropped by
 * removeScratch), else the embedded one in a migrated DATA_DIR. Not the shared test database: a
 * server's workers (the Shopify inbox, webhook deliveries, reward approvals) sweep every brand, and
 * took other files' rows there (a Shopify test's delivery, processed by this server, still had no
 * outcome when the test read it).
 */
export async function serverDatabase(): Promise<{ env: NodeJS.ProcessEnv; open(): Promise<Knex> }> {
  const url = process.env.TEST_DATABASE_URL && (await ownPostgresDatabase());
  const dataDir = url ? tempDataDir() : await migratedDataDir();
  return {
    env: { DATABASE_URL: url ?? '', DATA_DIR: dataDir },
    async open() {
      const db = createDatabase(url ? { databaseUrl: url, poolMax: 2 } : { dataDir });
      await migrateToLatest(db);
      return db;
    },
  };
}

async function ownPostgresDatabase(): Promise<string> {
  const postgres = await realPostgres({ ownDatabase: true });
  scratchDatabases.push(postgres);
  return postgresUrlOf(postgres.db);
}

/** Resolves once GET /readyz answers 200; fails at once, with the output, if the process exits first. */
export async function untilReady(server: Spawned, port: number, timeoutMs = 100_000): Promise<void> {
  let exit: { code: number | null } | null = null;
  void server.exited.then((result) => (exit = result));
  const deadline = Date.now() + timeoutMs; // WASM start-up plus migrations, on a busy machine
  for (;;) {
    if (exit) throw new Error(`the server exited (${JSON.stringify(exit)}) before it was ready:\n${server.stdout()}\n${server.stderr()}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the server was not ready in ${timeoutMs} ms:\n${server.stdout()}\n${server.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts the server (SERVER_COMMAND) and waits until it is ready. */
export async function startServer(env: NodeJS.ProcessEnv, port: number): Promise<Spawned> {
  const server = spawnProcess(SERVER_COMMAND, { ...env, PORT: String(port) });
  await untilReady(server, port);
  return server;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI (`referrals …`) in a process of its own: compiled, or `BIN` as a user runs it. */
export async function referrals(args: string[], env: NodeJS.ProcessEnv, command: string = CLI): Promise<CliResult> {
  const cli = spawnProcess([...NODE, command, ...args], env);
  const { code } = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

/** Ends a process of ours that a test left running (a failed test must not leave a server behind). */
export function killIfRunning(spawned: Spawned | undefined): void {
  if (spawned && spawned.child.exitCode === null && spawned.child.signalCode === null) spawned.child.kill('SIGKILL');
}

/** Whether any process is left in the group of a process spawned with `detached` (its own group). */
export function groupAlive(spawned: Spawned): boolean {
  try {
    process.kill(-spawned.child.pid!, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves once the group of a process spawned with `detached` is empty. The leader's exit event
 * can come before the kernel has removed the last member (a child not yet reaped is still in the
 * group), so this polls, for a bounded time, rather than checking once.
 */
export async function untilGroupEmpty(spawned: Spawned, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(spawned)) {
    if (Date.now() > deadline) throw new Error(`processes are still running in group ${spawned.child.pid} ${timeoutMs} ms after its leader exited`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The pids of a process's children, as procps `ps` lists them. */
export function childPids(pid: number): number[] {
  const listed = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  if (listed.error) throw listed.error;
  return listed.stdout.split('\n').filter((line) => line.trim()).map(Number);
}

/** Ends whatever a test left of such a group. */
export function killGroup(spawned: Spawned | undefined): void {
  if (spawned && groupAlive(spawned)) process.kill(-spawned.child.pid!, 'SIGKILL');
}

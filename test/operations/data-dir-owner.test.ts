import fs from 'node:fs';
import path from 'node:path';
import { DataDirInUseError, lockDataDir } from '../../core/db/data-dir-lock';
import {
  type Spawned,
  CLI,
  freePort,
  killIfRunning,
  migratedDataDir,
  NODE,
  processEnv,
  referrals,
  removeScratch,
  spawnProcess,
  startServer,
  tempDataDir,
  SERVER_COMMAND,
} from './processes';

/**
 * A process that owns the data directory and never serves it, as a hung or busy owner would; it
 * lets go (exit 0) on SIGHUP, so a test decides when rather than guessing a duration.
 */
function holdDataDir(dataDir: string): Spawned {
  const script = `const { lockDataDir } = require('./dist/core/db/data-dir-lock'); lockDataDir(${JSON.stringify(dataDir)}); process.on('SIGHUP', () => process.exit(0)); console.log('locked'); setTimeout(() => {}, 120000);`;
  return spawnProcess(['node', '-e', script], processEnv({}));
}

async function untilPrinted(spawned: Spawned, text: string, stream: 'stdout' | 'stderr' = 'stdout'): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!spawned[stream]().includes(text)) {
    if (spawned.child.exitCode !== null || Date.now() > deadline) throw new Error(`never printed "${text}": ${spawned.stdout()} ${spawned.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A unix socket file left behind by a process killed with SIGKILL. */
async function staleSocket(socketPath: string): Promise<void> {
  const listener = spawnProcess(['node', '-e', `require('net').createServer().listen(${JSON.stringify(socketPath)}, () => console.log('listening'))`], processEnv({}));
  await untilPrinted(listener, 'listening');
  listener.child.kill('SIGKILL');
  await listener.exited;
}

function brandIds(result: { stdout: string }): string[] {
  return (JSON.parse(result.stdout) as { brands: { brand_id: string }[] }).brands.map((brand) => brand.brand_id);
}

afterAll(removeScratch);

describe('the data directory lock', () => {
  it('refuses a second owner in the same process, through another path to the same directory, naming the owner pid', () => {
    const dataDir = tempDataDir();
    const alias = `${dataDir}-alias`;
    fs.symlinkSync(dataDir, alias);
    const lock = lockDataDir(dataDir);
    try {
      expect(() => lockDataDir(alias)).toThrow(DataDirInUseError);
      expect(() => lockDataDir(alias)).toThrow(`(pid ${process.pid})`);
    } finally {
      lock.release();
    }
    lockDataDir(alias).release();
  });
});

describe('one owner per data directory (embedded database)', () => {
  let dataDir: string;
  let owner: Spawned;
  let port: number;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dataDir = await migratedDataDir();
    port = await freePort();
    env = processEnv({ DATA_DIR: dataDir });
    owner = await startServer(env, port);
  }, 120_000);

  afterAll(() => killIfRunning(owner));

  it('refuses a second server with exit code 3, naming the directory and the owner pid, and leaves the owner and its admin socket alone', async () => {
    const alias = `${dataDir}-alias`;
    fs.symlinkSync(dataDir, alias);
    const second = spawnProcess(SERVER_COMMAND, { ...env, DATA_DIR: alias, PORT: String(await freePort()) });
    const { code } = await second.exited;
    expect(code).toBe(3);
    expect(second.stderr()).toContain(`the data directory ${alias} is in use by another process (pid ${owner.child.pid})`);

    expect(fs.statSync(path.join(dataDir, 'admin.sock')).isSocket()).toBe(true);
    const created = await referrals(['brand', 'create', '--name', 'Owned', '--plan', 'growth', '--json'], env);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const { api_key, brand_id } = JSON.parse(created.stdout);
    // The owner serves the brand the CLI created: the command ran in its database.
    const answer = await fetch(`http://127.0.0.1:${port}/api/v1/track/conversion`, {
      method: 'POST',
      headers: { 'X-API-Key': api_key, 'X-Brand-ID': brand_id, 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'bob@example.com', order_id: 'o-1', order_value: 10 }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ success: true, data: { attributed: false } });
  }, 120_000);

  it('has the owner answer the CLI before the CLI loads its commands or a database driver: a socket round trip, not the whole app', async () => {
    const cli = spawnProcess([...NODE, '-r', path.join(__dirname, 'report-loaded-modules.cjs'), CLI, 'brand', 'list', '--json'], env);
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(JSON.parse(cli.stdout())).toMatchObject({ brands: expect.arrayContaining([expect.objectContaining({ name: 'Owned' })]) });
    expect(cli.stderr()).toContain('loaded: {"knex":false,"pglite":false,"commands":false}');
  });
});

describe('a data directory whose owner was killed with SIGKILL', () => {
  it('is opened by the CLI, which leaves the stale admin socket, then taken over by a new server with every acknowledged write', async () => {
    const dataDir = await migratedDataDir();
    const env = processEnv({ DATA_DIR: dataDir });
    let server: Spawned | undefined;
    try {
      const port = await freePort();
      server = await startServer(env, port);
      const first = await referrals(['brand', 'create', '--name', 'Before the crash', '--plan', 'growth', '--json'], env);
      expect(first.code).toBe(0);
      server.child.kill('SIGKILL');
      await server.exited;

      const socketPath = path.join(dataDir, 'admin.sock');
      expect(fs.existsSync(socketPath)).toBe(true);
      const second = await referrals(['brand', 'create', '--name', 'After the crash', '--plan', 'growth', '--json'], env);
      expect(second).toMatchObject({ code: 0, stderr: '' });
      expect(fs.existsSync(socketPath)).toBe(true); // only an owner removes it

      server = await startServer(env, port);
      const listed = await referrals(['brand', 'list', '--json'], env);
      expect(listed.code).toBe(0);
      expect(brandIds(listed)).toEqual(
        expect.arrayContaining([JSON.parse(first.stdout).brand_id, JSON.parse(second.stdout).brand_id]),
      );
      // The new owner answered: while it runs, nobody else can take the lock.
      expect(() => lockDataDir(dataDir)).toThrow(`(pid ${server.child.pid})`);
    } finally {
      killIfRunning(server);
    }
  }, 240_000);
});

describe('the CLI when the owner does not answer', () => {
  it('fails with exit code 3 naming the directory and the owner pid, and leaves the socket file alone', async () => {
    const dataDir = tempDataDir();
    const socketPath = path.join(dataDir, 'admin.sock');
    await staleSocket(socketPath);
    const holder = holdDataDir(dataDir);
    try {
      await untilPrinted(holder, 'locked');
      const started = Date.now();
      const result = await referrals(['brand', 'list', '--json'], processEnv({ DATA_DIR: dataDir, CLI_OWNER_WAIT_SECONDS: '1' }));
      expect(result.code).toBe(3);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`the data directory ${dataDir} is in use by another process (pid ${holder.child.pid})`);
      expect(result.stderr).toContain(`nothing answers on ${socketPath}`);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
      expect(fs.statSync(socketPath).isSocket()).toBe(true);
    } finally {
      killIfRunning(holder);
    }
  }, 60_000);

  it('waits while another process holds the directory briefly, then runs the command itself', async () => {
    const dataDir = await migratedDataDir();
    const holder = holdDataDir(dataDir);
    let cli: Spawned | undefined;
    try {
      await untilPrinted(holder, 'locked');
      cli = spawnProcess([...NODE, CLI, 'brand', 'create', '--name', 'Patient', '--plan', 'starter', '--json'], processEnv({ DATA_DIR: dataDir }));
      await untilPrinted(cli, `waiting for pid ${holder.child.pid} that owns ${dataDir}`, 'stderr');
      holder.child.kill('SIGHUP');
      expect(await holder.exited).toEqual({ code: 0, signal: null }); // it let go first
      expect(await cli.exited).toEqual({ code: 0, signal: null });
      expect(JSON.parse(cli.stdout())).toMatchObject({ brand: { name: 'Patient' } });
    } finally {
      killIfRunning(holder);
      killIfRunning(cli);
    }
  }, 120_000);
});

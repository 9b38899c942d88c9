import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { lockDataDir } from '../../core/db/data-dir-lock';
import {
  BIN,
  type Spawned,
  childPids,
  freePort,
  killGroup,
  processEnv,
  referrals,
  removeScratch,
  spawnProcess,
  tempDataDir,
  untilGroupEmpty,
  untilReady,
} from '../operations/processes';

/** The README's quick start, as a user runs it: `npm start` on PGlite, the CLI beside it, curl. */
describe('quick start on the embedded database', () => {
  let npm: Spawned;
  let dataDir: string;
  let port: number;
  let env: NodeJS.ProcessEnv;

  // An empty DATA_DIR, as on a first start: this server creates and migrates its database (the other
  // tests' servers start from a copy of the migrated template).
  beforeAll(async () => {
    dataDir = tempDataDir();
    port = await freePort();
    env = processEnv({ DATA_DIR: dataDir, PORT: String(port) });
    // Its own process group, so that whatever a failed test leaves of it can be ended as a whole.
    npm = spawnProcess(['npm', 'start'], env, { detached: true });
    await untilReady(npm, port);
  }, 120_000);

  afterAll(() => {
    killGroup(npm);
    removeScratch();
  });

  async function cliJson(...args: string[]) {
    const result = await referrals([...args, '--json'], env, BIN); // `npx referrals`, as the README says
    expect(result).toMatchObject({ code: 0, stderr: '' });
    return JSON.parse(result.stdout);
  }

  it('creates a brand and an advocate through the CLI while the server runs, then records a conversion', async () => {
    const brand = await cliJson('brand', 'create', '--name', 'Acme', '--plan', 'premier', '--reward-type', 'percentage', '--reward-value', '10');
    const advocate = await cliJson('advocate', 'create', '--brand', brand.brand_id, '--email', 'ann@example.com', '--first-name', 'Ann');
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/track/conversion`, {
      method: 'POST',
      headers: { 'X-API-Key': brand.api_key, 'X-Brand-ID': brand.brand_id, 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'bob@example.com', order_id: '1001', order_value: 120, referral_code: advocate.referral_code }),
    });
    expect(response.status).toBe(201);
    expect(((await response.json()) as { data: unknown }).data).toMatchObject({ order_value: 120, referrer_reward_paid: 12 });
    const balance = await cliJson('advocate', 'balance', '--brand', brand.brand_id, '--advocate', String(advocate.advocate_id));
    // A brand created without --reward-hold-days holds rewards 30 days: earned, not spendable yet.
    expect(balance).toMatchObject({ pending: 12, balance: 0 });
    // No SMTP_URL: the program emails are written whole under DATA_DIR/mail/ (the welcome, then the reward).
    const mail = await untilFiles(path.join(dataDir, 'mail'), 2);
    expect(mail.map((file) => file.replace(/^.*Z-/, ''))).toEqual(['advocate_welcome-1.eml', 'reward_earned-2.eml']);
    const welcome = fs.readFileSync(path.join(dataDir, 'mail', mail[0]!), 'utf8');
    expect(welcome).toMatch(/^To: ann@example\.com$/m);
    expect(welcome).toContain(`Your referral code: ${advocate.referral_code}`);
  }, 120_000);

  /** The files in `folder` once there are `count` of them, oldest first (the mail worker looks every 2 s). */
  async function untilFiles(folder: string, count: number): Promise<string[]> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const files = fs.existsSync(folder) ? fs.readdirSync(folder).sort() : [];
      if (files.length >= count || Date.now() > deadline) return files;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('runs the server as npm\'s only child, so nothing between them relays signals (the tsx CLI did, and under load gave up after 30 ms with exit 143)', () => {
    const children = childPids(npm.child.pid!);
    expect(children).toHaveLength(1);
    expect(() => lockDataDir(dataDir)).toThrow(`(pid ${children[0]})`); // that child owns the data directory: it is the server
  });

  it('stops on SIGTERM to the `npm start` process, as a supervisor sends it: npm exits 0 and nothing is left holding the port or the data directory', async () => {
    npm.child.kill('SIGTERM');
    expect(await npm.exited).toEqual({ code: 0, signal: null });
    await untilGroupEmpty(npm); // no orphan left in its process group
    const refused = await new Promise<string | undefined>((resolve) =>
      net
        .connect(port, '127.0.0.1', () => resolve(undefined))
        .on('error', (error: NodeJS.ErrnoException) => resolve(error.code)),
    );
    expect(refused).toBe('ECONNREFUSED');
    lockDataDir(dataDir).release(); // throws if any process still owns it
  }, 60_000);
});

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'server/cli/referrals.cjs');

/** The README's quick start, as a user runs it: npm start on PGlite, the CLI beside it, curl. */
describe('quick start on the embedded database', () => {
  let server: ChildProcess;
  let dataDir: string;
  let port: number;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'referrals-e2e-'));
    port = 20000 + Math.floor(Math.random() * 20000);
    env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', PORT: String(port), LOG_LEVEL: 'warn', NODE_OPTIONS: '' };
    server = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['server/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const deadline = Date.now() + 100_000; // WASM start-up plus migrations, on a busy CI machine
    for (;;) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error('server did not become ready in 100 s');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 120_000);

  afterAll(() => {
    if (server.exitCode === null) server.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates a brand and an advocate through the CLI while the server runs, then records a conversion', async () => {
    const brand = JSON.parse(
      (await run('node', [BIN, 'brand', 'create', '--name', 'Acme', '--plan', 'growth', '--reward-type', 'percentage', '--reward-value', '10', '--json'], { env, cwd: ROOT })).stdout,
    );
    const advocate = JSON.parse(
      (await run('node', [BIN, 'advocate', 'create', '--brand', brand.brand_id, '--email', 'ann@example.com', '--first-name', 'Ann', '--json'], { env, cwd: ROOT })).stdout,
    );
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/track/conversion`, {
      method: 'POST',
      headers: { 'X-API-Key': brand.api_key, 'X-Brand-ID': brand.brand_id, 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'bob@example.com', order_id: '1001', order_value: 120, referral_code: advocate.referral_code }),
    });
    expect(response.status).toBe(201);
    expect(((await response.json()) as { data: unknown }).data).toMatchObject({ order_value: 120, referrer_reward_paid: 12 });
    const balance = JSON.parse(
      (await run('node', [BIN, 'advocate', 'balance', '--brand', brand.brand_id, '--advocate', String(advocate.advocate_id), '--json'], { env, cwd: ROOT })).stdout,
    );
    expect(balance.balance).toBe(12);
  }, 120_000);

  it('shuts down cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

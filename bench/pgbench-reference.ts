import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Database } from '../core/db/create-database';

const run = promisify(execFile);

/** The ceiling: what PostgreSQL itself sustains for the smallest honest version of our write. */
const REFERENCE_SCRIPT = `\\set account random(1, :accounts)
\\set event random(1, 9000000000000000000)
BEGIN;
INSERT INTO bench_ref_events (event_id, account_id, amount) VALUES (:event, :account, 12.00) ON CONFLICT DO NOTHING;
UPDATE bench_ref_balances SET balance = balance + 12.00 WHERE account_id = :account;
COMMIT;
`;

export interface ReferenceResult {
  connections: number;
  tps: number;
  latencyAverageMs: number;
}

/** pgbench from PGBENCH, PATH, or the newest /usr/lib/postgresql/<version>/bin. */
export function findPgbench(): string | null {
  if (process.env.PGBENCH) return process.env.PGBENCH;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && fs.existsSync(path.join(dir, 'pgbench'))) return path.join(dir, 'pgbench');
  }
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'pgbench')));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin', 'pgbench') : null;
}

/** Its own two tables in the bench database: an event row per transaction, a balance row per account. */
export async function prepareReference(db: Database, accounts: number): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS bench_ref_events, bench_ref_balances');
  await db.raw(`CREATE TABLE bench_ref_events (
    event_id bigint PRIMARY KEY, account_id integer NOT NULL, amount numeric(14,2) NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now())`);
  await db.raw('CREATE TABLE bench_ref_balances (account_id integer PRIMARY KEY, balance numeric(14,2) NOT NULL DEFAULT 0)');
  await db.raw('INSERT INTO bench_ref_balances (account_id) SELECT generate_series(1, ?)', [accounts]);
  await db.raw('VACUUM ANALYZE bench_ref_balances');
}

/** One pgbench run of the reference transaction at `connections` clients, prepared statements. */
export async function runReference(
  pgbench: string,
  databaseUrl: string,
  connections: number,
  seconds: number,
  accounts: number,
): Promise<ReferenceResult> {
  const scriptFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'referrals-pgbench-')), 'reference.sql');
  fs.writeFileSync(scriptFile, REFERENCE_SCRIPT);
  try {
    const { stdout } = await run(
      pgbench,
      ['-n', '-M', 'prepared', '-c', String(connections), '-j', String(Math.min(connections, os.cpus().length)),
        '-T', String(seconds), '-D', `accounts=${accounts}`, '-f', scriptFile, databaseUrl],
      { maxBuffer: 1 << 20 },
    );
    const tps = stdout.match(/tps = ([\d.]+)/);
    const latency = stdout.match(/latency average = ([\d.]+) ms/);
    if (!tps) throw new Error(`could not read pgbench's TPS from:\n${stdout}`);
    return { connections, tps: Number(tps[1]), latencyAverageMs: latency ? Number(latency[1]) : NaN };
  } finally {
    fs.rmSync(path.dirname(scriptFile), { recursive: true, force: true });
  }
}

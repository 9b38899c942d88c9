import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { cpuSecondsOf } from './process-cpu';

const { build } = require('../scripts/build-server.js') as { build(options: { ifStale?: boolean }): unknown };

export interface ServerProcess {
  url: string;
  pid: number;
  /** Resident memory now and at its peak (VmRSS, VmHWM), in MiB. */
  memory(): { rssMiB: number; peakMiB: number };
  /** CPU seconds (user + system) the server has used so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** A port nothing listens on now, for a server the bench starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function statusKiB(pid: number, field: string): number {
  const match = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
  return match ? Number(match[1]) : NaN;
}

async function waitReady(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${stderr()}`);
    try {
      const response = await fetch(`${url}/readyz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`server did not become ready within 60 s:\n${stderr()}`);
}

/** The pids of a process's children (WEB_CONCURRENCY's server processes under their primary). */
function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * What `npm run start:prod` runs the compiled server with (`exec env NAME=value … node <flags>
 * dist/server/main.js`): its environment settings and node flags, so the bench measures what
 * production runs.
 */
function productionLaunch(): { env: Record<string, string>; nodeFlags: string[] } {
  const scripts = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', 'package.json'), 'utf8')).scripts as Record<string, string>;
  const words = scripts['start:prod']!.split(/\s+/);
  const node = words.indexOf('node');
  const env = Object.fromEntries(words.slice(0, node).filter((word) => word.includes('=')).map((word) => word.split('=', 2) as [string, string]));
  return { env, nodeFlags: words.slice(node + 1, words.indexOf('dist/server/main.js')) };
}

/**
 * The real server as `npm start` runs it (compiled, with start:prod's settings), as a direct child
 * so that its pid is the one whose memory we read; with WEB_CONCURRENCY, the primary and its
 * workers together (RSS summed, peak = the sum of each one's peak).
 */
export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'referrals-bench-'));
  // BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the server.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // As `npm start` does: the build when sources changed, then what `npm run start:prod` runs.
  build({ ifStale: true });
  const production = productionLaunch();
  const entry = [...production.nodeFlags, 'dist/server/main.js'];
  const child = spawn(process.execPath, [...nodeArgs, ...entry], {
    cwd: path.resolve(__dirname, '..'),
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', DATA_DIR: dataDir, ...production.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, child, () => output);
  const pid = child.pid!;
  const all = () => [pid, ...childrenOf(pid)];
  const sum = (of: (one: number) => number) => all().reduce((total, one) => total + of(one), 0);
  return {
    url,
    pid,
    memory: () => ({ rssMiB: sum((one) => statusKiB(one, 'VmRSS')) / 1024, peakMiB: sum((one) => statusKiB(one, 'VmHWM')) / 1024 }),
    cpuSeconds: () => sum(cpuSecondsOf),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }).finally(() => fs.rmSync(dataDir, { recursive: true, force: true })),
  };
}

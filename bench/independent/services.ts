import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { cpuSecondsOf } from '../process-cpu';


const run = promisify(execFile);
export const REPOSITORY = path.resolve(__dirname, '..', '..');

export interface RunningService {
  url: string;
  /** CPU seconds of the process tree (npm, the shell it execs, node and any workers). */
  cpuSeconds(): number;
  /** The summed peak resident memory (VmHWM) of the process tree's node processes, in MiB. */
  peakRssMiB(): number;
  /** Seconds from spawn to the first 200 from /readyz (with `npm start`, a build when sources changed). */
  startSeconds: number;
  stop(): Promise<void>;
}

function descendantsOf(pid: number): number[] {
  let children: number[] = [];
  try {
    children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendantsOf(child)]);
}

async function waitReady(url: string, child: ChildProcess, log: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${child.spawnargs.join(' ')} exited with ${child.exitCode}:\n${fs.readFileSync(log, 'utf8').slice(-4000)}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${child.spawnargs.join(' ')} was not ready within 120 s:\n${fs.readFileSync(log, 'utf8').slice(-4000)}`);
}

function peakKiB(pid: number): number {
  try {
    return Number(/^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function isNpm(pid: number): boolean {
  try {
    return /(^|\/)npm(-cli\.js)?\b/.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, 2).join(' '));
  } catch {
    return true;
  }
}

/**
 * A command run from the repository as a merchant runs it (`npm start`, `npm run start:prod`), its
 * stdout and stderr appended to `logFile` as a process manager keeps them.
 */
export async function startService(command: string[], env: NodeJS.ProcessEnv, port: number, logFile: string): Promise<RunningService> {
  const log = fs.openSync(logFile, 'a');
  const spawned = Date.now();
  const child = spawn(command[0]!, command.slice(1), { cwd: REPOSITORY, env: { ...env, PORT: String(port) }, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, child, logFile);
  const startSeconds = (Date.now() - spawned) / 1000;
  const tree = () => [child.pid!, ...descendantsOf(child.pid!)];
  return {
    url,
    startSeconds,
    cpuSeconds: () => tree().reduce((sum, pid) => sum + cpuSecondsOf(pid), 0),
    // npm's own process is not the service: only node processes running its code count.
    peakRssMiB: () => tree().filter((pid) => !isNpm(pid)).reduce((sum, pid) => sum + peakKiB(pid), 0) / 1024,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** `npx referrals …` from the repository, as the README tells a merchant; its JSON answer. */
export async function referrals(args: string[], env: NodeJS.ProcessEnv): Promise<Record<string, unknown>> {
  const { stdout } = await run('npx', ['referrals', ...args, '--json'], { cwd: REPOSITORY, env, maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as Record<string, unknown>;
}

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Set by globalSetup for the workers: this run's folder, removed by globalTeardown. */
const RUN_DIR_VARIABLE = 'REFERRALS_TEST_RUN_DIR';
const RUN_DIR_PREFIX = 'referrals-test-';
const RAM_DISK = '/dev/shm';
/** An embedded data directory is ~40 MB: a template and a few copies fit with room to spare. */
const RAM_DISK_NEEDED_BYTES = 512 * 1024 * 1024;

/** An embedded data directory is ~1,100 files: in RAM it is written in tens of ms, on a busy disk in a second. */
function scratchRoot(): string {
  try {
    fs.accessSync(RAM_DISK, fs.constants.W_OK);
    const { bavail, bsize } = fs.statfsSync(RAM_DISK);
    if (bavail * bsize >= RAM_DISK_NEEDED_BYTES) return RAM_DISK;
  } catch {
    // no RAM disk on this system
  }
  return os.tmpdir();
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs stopped by Ctrl-C never reach globalTeardown; their folders would hold RAM until a reboot. */
function removeAbandonedRuns(root: string): void {
  const runOf = new RegExp(`^${RUN_DIR_PREFIX}(\\d+)-`);
  for (const name of fs.readdirSync(root)) {
    const pid = Number(runOf.exec(name)?.[1]);
    if (pid && !isAlive(pid)) fs.rmSync(path.join(root, name), { recursive: true, force: true });
  }
}

/** globalSetup: the run's folder, in RAM when the system has room. */
export function createRunDir(): string {
  const root = scratchRoot();
  removeAbandonedRuns(root);
  const runDir = fs.mkdtempSync(path.join(root, `${RUN_DIR_PREFIX}${process.pid}-`));
  process.env[RUN_DIR_VARIABLE] = runDir;
  return runDir;
}

export function runDir(): string {
  const dir = process.env[RUN_DIR_VARIABLE];
  if (!dir || !fs.existsSync(dir)) {
    throw new Error(`No test run folder (${RUN_DIR_VARIABLE}=${dir}): run the tests with jest, whose globalSetup creates it`);
  }
  return dir;
}

/** A new empty folder for one test (a data directory, a file); globalTeardown removes it. */
export function scratchDir(prefix: string): string {
  return fs.mkdtempSync(path.join(runDir(), prefix));
}

export function removeRunDir(): void {
  const dir = process.env[RUN_DIR_VARIABLE];
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}

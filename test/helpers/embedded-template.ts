import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDatabase } from '../../core/db/create-database';
import { migrateToLatest } from '../../core/db/migrate';

/** Set by globalSetup for the workers: the run's folder, holding the migrated template. */
const RUN_DIR_VARIABLE = 'REFERRALS_TEST_EMBEDDED_RUN_DIR';
const RUN_DIR_PREFIX = 'referrals-test-';
const TEMPLATE = 'template';
const RAM_DISK = '/dev/shm';
/** A template and two workers' copies (~40 MB each) fit with room to spare. */
const RAM_DISK_NEEDED_BYTES = 512 * 1024 * 1024;

let copies = 0;

/** A data directory is ~1,100 files: copying one takes ~50 ms in RAM, up to a second on a busy disk. */
function scratchRoot(): string {
  try {
    const { bavail, bsize } = fs.statfsSync(RAM_DISK);
    fs.accessSync(RAM_DISK, fs.constants.W_OK);
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
  for (const name of fs.readdirSync(root)) {
    const pid = Number(new RegExp(`^${RUN_DIR_PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (pid && !isAlive(pid)) fs.rmSync(path.join(root, name), { recursive: true, force: true });
  }
}

/**
 * Creates and migrates one embedded data directory for the whole run (PGlite's first start and
 * the migrations were most of a test file's set-up); returns the run's folder.
 */
export async function createEmbeddedTemplate(): Promise<string> {
  const root = scratchRoot();
  removeAbandonedRuns(root);
  const runDir = fs.mkdtempSync(path.join(root, `${RUN_DIR_PREFIX}${process.pid}-`));
  process.env[RUN_DIR_VARIABLE] = runDir;
  const db = createDatabase({ dataDir: path.join(runDir, TEMPLATE) });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
  return runDir;
}

/** A fresh data directory for one test file: a copy of the migrated template. */
export function copyOfEmbeddedTemplate(): string {
  const runDir = process.env[RUN_DIR_VARIABLE];
  const template = runDir ? path.join(runDir, TEMPLATE, 'pgdata') : '';
  if (!runDir || !fs.existsSync(template)) {
    throw new Error(`No migrated embedded database to copy (${RUN_DIR_VARIABLE}=${runDir}): run the tests with jest, whose globalSetup creates it`);
  }
  copies += 1;
  const dataDir = path.join(runDir, `db-${process.pid}-${copies}`);
  fs.cpSync(template, path.join(dataDir, 'pgdata'), { recursive: true });
  return dataDir;
}

export function removeEmbeddedRun(): void {
  const runDir = process.env[RUN_DIR_VARIABLE];
  if (runDir) fs.rmSync(runDir, { recursive: true, force: true });
}

import fs from 'node:fs';
import path from 'node:path';
import { createDatabase } from '../../core/db/create-database';
import { migrateToLatest } from '../../core/db/migrate';
import { runDir, scratchDir } from './scratch-space';

const TEMPLATE = 'template';

/**
 * PGlite sets up its shared buffer pool in WASM memory at every start (128 MB by default); a test
 * database holds a few MB, and with a small pool the embedded suite spent ~10% less CPU.
 */
function withSmallBufferPool(pgdata: string): void {
  fs.appendFileSync(path.join(pgdata, 'postgresql.conf'), '\nshared_buffers = 8MB\n');
}

/** Creates and migrates an embedded data directory in `dataDir`, set up to start fast. */
async function createMigratedDataDir(dataDir: string): Promise<void> {
  const db = createDatabase({ dataDir });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
  withSmallBufferPool(path.join(dataDir, 'pgdata'));
}

/**
 * Creates and migrates one embedded data directory for the whole run, in the run's folder:
 * PGlite's first start and the migrations were most of a test file's set-up.
 */
export async function createEmbeddedTemplate(): Promise<void> {
  await createMigratedDataDir(path.join(runDir(), TEMPLATE));
}

/** Fills the empty data directory `dataDir` with a migrated database: for a server whose test is not about a first start. */
export function fillWithMigratedDatabase(dataDir: string): void {
  copyPgdata(path.join(runDir(), TEMPLATE, 'pgdata'), dataDir);
}

function copyPgdata(template: string, dataDir: string): void {
  if (!fs.existsSync(template)) throw new Error(`No migrated embedded database at ${template}: globalSetup creates it`);
  fs.cpSync(template, path.join(dataDir, 'pgdata'), { recursive: true });
}

/** A fresh data directory for one test file: a copy of the migrated template. */
export function copyOfEmbeddedTemplate(): string {
  const dataDir = scratchDir('db-');
  copyPgdata(path.join(runDir(), TEMPLATE, 'pgdata'), dataDir);
  return dataDir;
}

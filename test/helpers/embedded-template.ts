import fs from 'node:fs';
import path from 'node:path';
import { createDatabase } from '../../core/db/create-database';
import { migrateToLatest } from '../../core/db/migrate';
import { runDir, scratchDir } from './scratch-space';

const TEMPLATE = 'template';

/**
 * Creates and migrates one embedded data directory for the whole run, in the run's folder:
 * PGlite's first start and the migrations were most of a test file's set-up.
 */
export async function createEmbeddedTemplate(): Promise<void> {
  const db = createDatabase({ dataDir: path.join(runDir(), TEMPLATE) });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}

/** A fresh data directory for one test file: a copy of the migrated template. */
export function copyOfEmbeddedTemplate(): string {
  const template = path.join(runDir(), TEMPLATE, 'pgdata');
  if (!fs.existsSync(template)) throw new Error(`No migrated embedded database at ${template}: globalSetup creates it when TEST_DATABASE_URL is not set`);
  const dataDir = scratchDir('db-');
  fs.cpSync(template, path.join(dataDir, 'pgdata'), { recursive: true });
  return dataDir;
}

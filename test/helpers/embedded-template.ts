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

let ownTemplate: Promise<string> | null = null;

/**
 * The migrated pgdata to copy: the run's template, or on PostgreSQL runs (which make none) one
 * migrated once for this test file, for the tests that always run the embedded database.
 */
async function templatePgdata(): Promise<string> {
  const shared = path.join(runDir(), TEMPLATE, 'pgdata');
  if (fs.existsSync(shared) || !process.env.TEST_DATABASE_URL) return shared;
  ownTemplate ??= (async () => {
    const dir = scratchDir('template-');
    const db = createDatabase({ dataDir: dir });
    try {
      await migrateToLatest(db);
    } finally {
      await db.destroy();
    }
    return path.join(dir, 'pgdata');
  })();
  return ownTemplate;
}

/** Fills the empty data directory `dataDir` with a migrated database: for a server whose test is not about a first start. */
export async function fillWithMigratedDatabase(dataDir: string): Promise<void> {
  copyPgdata(await templatePgdata(), dataDir);
}

function copyPgdata(template: string, dataDir: string): void {
  if (!fs.existsSync(template)) throw new Error(`No migrated embedded database at ${template}: globalSetup creates it when TEST_DATABASE_URL is not set`);
  fs.cpSync(template, path.join(dataDir, 'pgdata'), { recursive: true });
}

/** A fresh data directory for one test file: a copy of the migrated template. */
export function copyOfEmbeddedTemplate(): string {
  const dataDir = scratchDir('db-');
  copyPgdata(path.join(runDir(), TEMPLATE, 'pgdata'), dataDir);
  return dataDir;
}

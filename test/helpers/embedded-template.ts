import fs from 'node:fs';
import path from 'node:path';
import { createDatabase } from '../../core/db/create-database';
import { migrateToLatest } from '../../core/db/migrate';
import { RUN_ARTIFACTS, makeRunArtifact, runArtifact } from './run-artifacts';
import { runDir, scratchDir } from './scratch-space';

const TEMPLATE = RUN_ARTIFACTS.embeddedTemplate;

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
 * PGlite's first start and the migrations were most of a test file's set-up. Built under another
 * name and renamed when whole, so a test that waits for it never copies half of one.
 */
export async function createEmbeddedTemplate(): Promise<void> {
  const building = path.join(runDir(), `${TEMPLATE}.building`);
  await createMigratedDataDir(building);
  fs.renameSync(building, path.join(runDir(), TEMPLATE));
}

/** globalSetup: createEmbeddedTemplate in a process of its own (run-artifacts.ts). */
export function makeEmbeddedTemplate(): Promise<void> {
  return makeRunArtifact(TEMPLATE, path.join(__dirname, 'make-embedded-template.ts'));
}

/** The template's pgdata once globalSetup's child has made it: it is made while the workers load their suites. */
async function templatePgdata(): Promise<string> {
  return path.join(await runArtifact(TEMPLATE, 'the embedded template'), 'pgdata');
}

/** Fills the empty data directory `dataDir` with a migrated database: for a server whose test is not about a first start. */
export async function fillWithMigratedDatabase(dataDir: string): Promise<void> {
  copyPgdata(await templatePgdata(), dataDir);
}

function copyPgdata(template: string, dataDir: string): void {
  if (!fs.existsSync(template)) throw new Error(`No migrated embedded database at ${template}: globalSetup creates it`);
  fs.cpSync(template, path.join(dataDir, 'pgdata'), { recursive: true });
}

/** A fresh data directory for one suite or file: a copy of the migrated template, once globalSetup's child has made it. */
export async function copyOfEmbeddedTemplate(): Promise<string> {
  const dataDir = scratchDir('db-');
  await fillWithMigratedDatabase(dataDir);
  return dataDir;
}


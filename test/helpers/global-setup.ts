import path from 'node:path';
import { createDatabase } from '../../core/db/create-database';
import { migrateToLatest } from '../../core/db/migrate';
import { setBackgroundWork } from './background-work';
import { buildCompiled } from './compiled-build';
import { makeEmbeddedTemplate } from './embedded-template';
import { createScratchTemplate } from './real-postgres';
import { RUN_ARTIFACTS, makeRunArtifact } from './run-artifacts';
import { createRunDir } from './scratch-space';

/**
 * Once per run, side by side: the compiled server and CLI that process tests start; the migrated
 * embedded template that test files copy; the shared database on a real PostgreSQL; the part of
 * Shopify's Admin schema the fake Shopify checks documents against first; the migrated PostgreSQL
 * database that scratch databases are copied from. The workers start without waiting for the
 * embedded template (PGlite's first start, ~4 s): they load their suites meanwhile, and what copies
 * the template waits for it (test/helpers/embedded-template.ts).
 */
export default async function globalSetup(): Promise<void> {
  createRunDir();
  const template = makeEmbeddedTemplate();
  // Optional: without it the fake Shopify builds the whole schema in each test file.
  const shopifySchema = makeRunArtifact(RUN_ARTIFACTS.adminSchemaSubset, path.join(__dirname, '../shopify/write-admin-schema-subset.ts')).catch((error: Error) =>
    process.stderr.write(`\nThe Admin schema subset was not written; the Shopify tests build the whole schema:\n${error.message}\n`),
  );
  setBackgroundWork(Promise.all([template.catch(() => undefined), shopifySchema])); // a template failure is written for the tests
  await Promise.all([buildCompiled(), createScratchTemplate(), process.env.TEST_DATABASE_URL ? migrateTestDatabase() : undefined]);
}

async function migrateTestDatabase(): Promise<void> {
  const db = createDatabase({ databaseUrl: process.env.TEST_DATABASE_URL! });
  try {
    await migrateToLatest(db);
  } catch (error) {
    throw new Error(`TEST_DATABASE_URL is set but the database cannot be migrated: ${(error as Error).message}`);
  } finally {
    await db.destroy();
  }
}

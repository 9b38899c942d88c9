import { buildCompiled } from './compiled-build';
import { createDatabase } from '../../core/db/create-database';
import { migrateToLatest } from '../../core/db/migrate';
import { createEmbeddedTemplate } from './embedded-template';
import { createRunDir } from './scratch-space';

/**
 * Once per run, before the workers start, side by side: the compiled server and CLI that process
 * tests start; the migrated embedded template that test files copy (on PostgreSQL runs too, where
 * the tests of the embedded database's own processes use it); the shared database on a real
 * PostgreSQL.
 */
export default async function globalSetup(): Promise<void> {
  createRunDir();
  await Promise.all([buildCompiled(), createEmbeddedTemplate(), migrateTestDatabase()]);
}

async function migrateTestDatabase(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const db = createDatabase({ databaseUrl: url });
  try {
    await migrateToLatest(db);
  } catch (error) {
    throw new Error(`TEST_DATABASE_URL is set but the database cannot be migrated: ${(error as Error).message}`);
  } finally {
    await db.destroy();
  }
}

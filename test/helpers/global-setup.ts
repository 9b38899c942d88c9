import { buildCompiled } from './compiled-build';
import { createDatabase } from '../../core/db/create-database';
import { migrateToLatest } from '../../core/db/migrate';
import { makeEmbeddedTemplate, setTemplateBuild } from './embedded-template';
import { createRunDir } from './scratch-space';

/**
 * Once per run, side by side: the compiled server and CLI that process tests start; the migrated
 * embedded template that test files copy; the shared database on a real PostgreSQL. On PostgreSQL
 * runs only the tests of the embedded database's own processes copy the template: the workers
 * start without waiting for it, and those tests wait (test/helpers/embedded-template.ts).
 */
export default async function globalSetup(): Promise<void> {
  createRunDir();
  const template = makeEmbeddedTemplate();
  if (process.env.TEST_DATABASE_URL) {
    setTemplateBuild(template.catch(() => undefined)); // a failure is written for the waiting tests
    await Promise.all([buildCompiled(), migrateTestDatabase()]);
  } else {
    await Promise.all([buildCompiled(), template]);
  }
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

import { createDatabase } from '../../core/db/create-database';
import { migrateToLatest } from '../../core/db/migrate';
import { createEmbeddedTemplate } from './embedded-template';
import { createRunDir } from './scratch-space';

/**
 * Migrates once per run, before the workers start: the shared database on a real PostgreSQL,
 * else an embedded template that each test file copies.
 */
export default async function globalSetup(): Promise<void> {
  createRunDir();
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    await createEmbeddedTemplate();
    return;
  }
  const db = createDatabase({ databaseUrl: url });
  try {
    await migrateToLatest(db);
  } catch (error) {
    throw new Error(`TEST_DATABASE_URL is set but the database cannot be migrated: ${(error as Error).message}`);
  } finally {
    await db.destroy();
  }
}

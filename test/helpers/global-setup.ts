import { createDatabase } from '../../core/db/create-database';
import { migrateToLatest } from '../../core/db/migrate';

/** On a real PostgreSQL, migrate once before the workers start (they share the database). */
export default async function globalSetup(): Promise<void> {
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

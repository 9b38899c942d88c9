import type { Knex } from 'knex';
import { createDatabase } from '../../core/db/create-database';
import { migrateToLatest } from '../../core/db/migrate';

let shared: Promise<Knex> | null = null;

/**
 * One database per test file: a pool on TEST_DATABASE_URL (already migrated by globalSetup),
 * else an in-memory PGlite migrated here. Tests isolate themselves by creating their own brands.
 */
export function testDatabase(): Promise<Knex> {
  shared ??= (async () => {
    const url = process.env.TEST_DATABASE_URL;
    const db = createDatabase(url ? { databaseUrl: url, poolMax: 20 } : { dataDir: null });
    if (!url) await migrateToLatest(db);
    return db;
  })();
  return shared;
}

export async function closeTestDatabase(): Promise<void> {
  if (!shared) return;
  const db = await shared;
  shared = null;
  await db.destroy();
}

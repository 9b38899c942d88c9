import fs from 'node:fs';
import type { Knex } from 'knex';
import { createDatabase } from '../../core/db/create-database';
import { copyOfEmbeddedTemplate } from './embedded-template';

let shared: Promise<Knex> | null = null;
let embeddedDataDir: string | null = null;

/**
 * One database per test file: a pool on TEST_DATABASE_URL (migrated by globalSetup), else a copy
 * of the run's migrated embedded template. Tests isolate themselves by creating their own brands.
 */
export function testDatabase(): Promise<Knex> {
  shared ??= (async () => {
    const url = process.env.TEST_DATABASE_URL;
    if (url) return createDatabase({ databaseUrl: url, poolMax: 20 });
    embeddedDataDir = await copyOfEmbeddedTemplate();
    return createDatabase({ dataDir: embeddedDataDir });
  })();
  return shared;
}

export async function closeTestDatabase(): Promise<void> {
  if (!shared) return;
  const db = await shared;
  shared = null;
  await db.destroy();
  if (embeddedDataDir) fs.rmSync(embeddedDataDir, { recursive: true, force: true });
  embeddedDataDir = null;
}

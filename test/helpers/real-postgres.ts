import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { createDatabase } from '../../core/db/create-database';
import { migrateToLatest } from '../../core/db/migrate';
import { closeStartedApps } from './started-apps';

/** Where a developer's machine (and CI) runs PostgreSQL when TEST_DATABASE_URL is not set. */
export const LOCAL_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface RealPostgres {
  db: Knex;
  close(): Promise<void>;
}

/** Closes a database only after the apps on it: an app closed later sends its last counts to a pool that is gone. */
async function closeAfterItsApps(db: Knex): Promise<void> {
  await closeStartedApps(db);
  await db.destroy();
}

async function reachable(db: Knex, url: string): Promise<void> {
  try {
    await db.raw('select 1');
  } catch (error) {
    await db.destroy();
    throw new Error(
      `This test needs a real PostgreSQL (state shared by several server instances cannot be shown on the ` +
        `embedded PGlite). Set TEST_DATABASE_URL or run PostgreSQL at ${LOCAL_POSTGRES_URL}; ` +
        `${url.replace(/:[^:@/]*@/, ':***@')} answered: ${(error as Error).message}`,
    );
  }
}

/** Names the migrated database globalSetup made for this run, which scratch databases are copied from. */
const TEMPLATE_ENV = 'REFERRALS_TEST_TEMPLATE_DATABASE';

/** The server scratch databases are created on: TEST_DATABASE_URL's, else the local one. */
const scratchServerUrl = () => process.env.TEST_DATABASE_URL ?? LOCAL_POSTGRES_URL;

/** A database name no other run or file uses. */
const newDatabaseName = (kind: 'scratch' | 'template') => `referrals_${kind}_${process.pid}_${randomBytes(4).toString('hex')}`;

/** The URL of database `name` on that server. */
function scratchUrl(name: string): string {
  const url = new URL(scratchServerUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * globalSetup: a migrated database for scratch databases to be copied from, so that each is a file
 * copy instead of a run of every migration. Without a reachable PostgreSQL there is none, and the
 * tests that need one fail saying so, as they do without it.
 */
export async function createScratchTemplate(): Promise<void> {
  const server = createDatabase({ databaseUrl: scratchServerUrl(), poolMax: 1 });
  try {
    await server.raw('select 1');
  } catch {
    await server.destroy();
    return;
  }
  const name = newDatabaseName('template');
  try {
    await server.raw(`CREATE DATABASE ${name}`);
    const db = createDatabase({ databaseUrl: scratchUrl(name) });
    try {
      await migrateToLatest(db);
    } finally {
      await db.destroy(); // a template must have no sessions while it is copied
    }
    process.env[TEMPLATE_ENV] = name; // the workers, started after globalSetup, inherit it
  } finally {
    await server.destroy();
  }
}

/** globalTeardown: drops the template globalSetup made. */
export async function dropScratchTemplate(): Promise<void> {
  const name = process.env[TEMPLATE_ENV];
  if (!name) return;
  const server = createDatabase({ databaseUrl: scratchServerUrl(), poolMax: 1 });
  try {
    await server.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await server.destroy();
  }
}

/**
 * A real PostgreSQL, never PGlite: TEST_DATABASE_URL when set (already migrated by globalSetup),
 * else a scratch database created on the local server and dropped by close(). With `ownDatabase`,
 * a scratch database on TEST_DATABASE_URL's server too: for a file whose background workers sweep
 * every brand (they would take other files' rows on the shared database). Neither reachable → the
 * test fails with a message saying so; it never passes without having run.
 */
export async function realPostgres(options: { ownDatabase?: boolean } = {}): Promise<RealPostgres> {
  const url = process.env.TEST_DATABASE_URL;
  if (url && !options.ownDatabase) {
    const db = createDatabase({ databaseUrl: url });
    await reachable(db, url);
    return { db, close: () => closeAfterItsApps(db) };
  }
  const serverUrl = scratchServerUrl();
  const server = createDatabase({ databaseUrl: serverUrl, poolMax: 1 });
  await reachable(server, serverUrl);
  const name = newDatabaseName('scratch');
  const template = process.env[TEMPLATE_ENV];
  await server.raw(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  const db = createDatabase({ databaseUrl: scratchUrl(name) });
  await migrateToLatest(db); // nothing to do on a copy of the template
  return {
    db,
    close: async () => {
      await closeAfterItsApps(db);
      await server.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`); // a killed server's sessions may not have ended yet
      await server.destroy();
    },
  };
}

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
  const serverUrl = url ?? LOCAL_POSTGRES_URL;
  const server = createDatabase({ databaseUrl: serverUrl, poolMax: 1 });
  await reachable(server, serverUrl);
  const name = `referrals_scratch_${process.pid}_${randomBytes(4).toString('hex')}`;
  await server.raw(`CREATE DATABASE ${name}`);
  const scratchUrl = new URL(serverUrl);
  scratchUrl.pathname = `/${name}`;
  const db = createDatabase({ databaseUrl: scratchUrl.toString() });
  await migrateToLatest(db);
  return {
    db,
    close: async () => {
      await closeAfterItsApps(db);
      await server.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`); // a killed server's sessions may not have ended yet
      await server.destroy();
    },
  };
}

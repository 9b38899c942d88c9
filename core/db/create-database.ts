import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { type DataDirLock, lockDataDir } from './data-dir-lock';

export type Database = Knex;

export interface DatabaseOptions {
  /** A PostgreSQL connection string; when absent the embedded PGlite is used. */
  databaseUrl?: string;
  /** Where PGlite keeps its files; `null` keeps everything in memory (tests). */
  dataDir?: string | null;
  poolMax?: number;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

// pg already returns numeric as a string; int8 too, but make it explicit so both drivers agree.
pg.types.setTypeParser(INT8_OID, (value: string) => value);

interface EmbeddedConfig {
  embedded?: boolean;
  dataDirLock?: DataDirLock;
}

/** True when the database is the in-process PGlite (single connection, one process per data dir). */
export function isEmbedded(db: Database): boolean {
  return (db.client.config as EmbeddedConfig).embedded === true;
}

/** The lock that makes this process the data directory's only owner (embedded database on disk only). */
export function dataDirLockOf(db: Database): DataDirLock | null {
  return (db.client.config as EmbeddedConfig).dataDirLock ?? null;
}

/**
 * Opens the database. On disk, the embedded one is first locked for this process (throws
 * DataDirInUseError when another process owns it) and unlocked by `destroy()` or process exit.
 */
export function createDatabase(options: DatabaseOptions): Database {
  if (options.databaseUrl) {
    return knexFactory({
      client: 'pg',
      connection: options.databaseUrl,
      pool: { min: 0, max: options.poolMax ?? 10 },
    });
  }
  // Loaded lazily so a deployment on real PostgreSQL never touches the WASM build.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ClientPgLite = require('knex-pglite') as typeof Knex.Client;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { PGlite } = require('@electric-sql/pglite') as typeof import('@electric-sql/pglite');
  const dataDir = options.dataDir === undefined ? './.data' : options.dataDir;
  const lock = dataDir ? lockDataDir(dataDir) : undefined; // before PGlite touches a file
  // Same value shapes as node-postgres: int8 and numeric as exact strings.
  const parsers = { [INT8_OID]: (v: string) => v, [NUMERIC_OID]: (v: string) => v };
  const pglite = lock ? new PGlite(path.join(lock.dataDir, 'pgdata'), { parsers }) : new PGlite({ parsers });
  class OwnedPgLite extends ClientPgLite {
    // knex closes PGlite only if a query ever opened it; the lock goes only once PGlite is closed.
    override async destroy(callback?: () => void): Promise<void> {
      try {
        await super.destroy(undefined);
        await pglite.waitReady;
        if (!pglite.closed) await pglite.close();
      } finally {
        lock?.release();
      }
      callback?.();
    }
  }
  return knexFactory({
    client: OwnedPgLite,
    dialect: 'postgres',
    connection: () => ({ pglite }) as object,
    embedded: true,
    dataDirLock: lock,
  } as Knex.Config);
}

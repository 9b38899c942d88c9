import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

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

/** True when the database is the in-process PGlite (single connection, one process per data dir). */
export function isEmbedded(db: Database): boolean {
  return (db.client.config as { embedded?: boolean }).embedded === true;
}

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
  const ClientPgLite = require('knex-pglite');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { PGlite } = require('@electric-sql/pglite') as typeof import('@electric-sql/pglite');
  const dataDir = options.dataDir === undefined ? './.data' : options.dataDir;
  if (dataDir) fs.mkdirSync(path.resolve(dataDir), { recursive: true });
  // Same value shapes as node-postgres: int8 and numeric as exact strings.
  const parsers = { [INT8_OID]: (v: string) => v, [NUMERIC_OID]: (v: string) => v };
  const pglite = dataDir ? new PGlite(path.resolve(dataDir, 'pgdata'), { parsers }) : new PGlite({ parsers });
  return knexFactory({
    client: ClientPgLite,
    dialect: 'postgres',
    connection: () => ({ pglite }) as object,
    embedded: true,
  } as Knex.Config);
}

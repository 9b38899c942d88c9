import type { Knex } from 'knex';

/** The connection string of a knex pool on PostgreSQL, for another process or pool to open. */
export function postgresUrlOf(db: Knex): string {
  const { user, password, host, port, database } = db.client.config.connection as Knex.PgConnectionConfig;
  return `postgres://${user}${password ? `:${String(password)}` : ''}@${host}:${port ?? 5432}/${database}`;
}

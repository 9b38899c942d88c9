import type { Knex } from 'knex';

export type Executor = Knex | Knex.Transaction;

/** Runs a use case in one transaction; PGlite has a single connection, so every query must use trx. */
export function inTransaction<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(work);
}

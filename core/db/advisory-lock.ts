import type { Knex } from 'knex';

/**
 * Serialises work on one key (an order, a customer, a shop) until the caller's transaction ends:
 * a transaction-scoped advisory lock on the key's 64-bit hash, so no row has to exist to lock it.
 */
export async function lockKey(trx: Knex.Transaction, key: string): Promise<void> {
  await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [key]);
}

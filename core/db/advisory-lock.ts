import type { Knex } from 'knex';

/**
 * Serialises work on one key (an order, a customer, a shop) until the caller's transaction ends:
 * a transaction-scoped advisory lock on the key's 64-bit hash, so no row has to exist to lock it.
 */
export async function lockKey(trx: Knex.Transaction, key: string): Promise<void> {
  await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [key]);
}

/**
 * Takes the locks on all of `keys` until the caller's transaction ends, or none is waited for:
 * false when another transaction holds any of them (it is doing the same work).
 */
export async function tryLockKeys(trx: Knex.Transaction, keys: string[]): Promise<boolean> {
  const locked = await trx.raw<{ rows: Array<{ ok: boolean | null }> }>(
    // The keys as one JSON parameter: knex would spread an array into a list of parameters.
    'SELECT bool_and(pg_try_advisory_xact_lock(hashtextextended(key, 0))) AS ok FROM json_array_elements_text(CAST(? AS json)) AS key',
    [JSON.stringify(keys)],
  );
  return locked.rows[0]?.ok !== false;
}

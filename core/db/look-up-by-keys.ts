import type { Knex } from 'knex';
import type { Executor } from './transaction';

/**
 * One statement that looks up a batch of keys: `keys` (JSON text, or a statementOnce slot) is an
 * array of objects read as the recordset `k`
 * (`keyColumns`: its typed columns), and `lookUp` reads one key's rows, by index, referring to
 * `k`'s columns. Its text is the same whatever the batch's size, so it is prepared once per
 * connection; a JSON recordset rather than unnest(arrays), whose row estimate follows the array's
 * length, so that one key and many are planned alike and PostgreSQL keeps one generic plan
 * instead of planning every execution. `lookUp` ends in LIMIT (or OFFSET 0), which keeps it from
 * being flattened into a join the planner could turn into a scan of the whole table.
 */
export function lookUpByKeys(db: Executor, keyColumns: string, keys: string, lookUp: Knex.QueryBuilder | Knex.Raw): Knex.Raw {
  return db.raw(`SELECT found.* FROM jsonb_to_recordset(?::jsonb) AS k(${keyColumns}) CROSS JOIN LATERAL (?) AS found`, [keys, lookUp]);
}

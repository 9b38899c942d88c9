import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { isEmbedded } from './create-database';
import type { Executor } from './transaction';

/**
 * Runs a hot query as a named prepared statement on PostgreSQL, so each pooled connection parses
 * and plans it once: for index look-ups planning costs more than running. The name is a digest of
 * the SQL text, so two different texts never share a name. PGlite runs it unnamed.
 */
export function prepared<Query extends Knex.QueryBuilder | Knex.Raw>(db: Executor, query: Query): Query {
  if (isEmbedded(db)) return query;
  const name = `q_${createHash('sha1').update(query.toSQL().sql).digest('hex').slice(0, 24)}`;
  return query.options({ name }) as Query;
}

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
  return query.options({ name: statementName(query.toSQL().sql) }) as Query;
}

function statementName(sql: string): string {
  return `q_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
}

/** Stands for the i-th value of a statement compiled once (SLOT + i), replaced at each run. */
const SLOT = '\u0000value ';

/**
 * A hot statement whose text never changes, compiled by knex once per process and run as a named
 * prepared statement (see prepared): `build` writes it with `slots[i]` where the i-th value goes,
 * and each run only binds the values. Compiling query builders and nested raws on every call,
 * twice with prepared's digest, was a tenth of the server's CPU on the conversion path.
 */
export function statementOnce(slotCount: number, build: (db: Executor, slots: string[]) => Knex.QueryBuilder | Knex.Raw): (db: Executor, values: unknown[]) => Knex.Raw {
  const slots = Array.from({ length: slotCount }, (_, index) => `${SLOT}${index}`);
  let compiled: { sql: string; bindings: readonly unknown[]; name: string } | undefined;
  return (db, values) => {
    if (!compiled) {
      const { sql, bindings } = build(db, slots).toSQL();
      compiled = { sql, bindings, name: statementName(sql) };
    }
    const bindings = compiled.bindings.map((binding) =>
      typeof binding === 'string' && binding.startsWith(SLOT) ? values[Number(binding.slice(SLOT.length))] : binding,
    );
    const raw = db.raw(compiled.sql, bindings as Knex.RawBinding[]);
    return isEmbedded(db) ? raw : raw.options({ name: compiled.name });
  };
}

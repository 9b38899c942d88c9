import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { isEmbedded } from './create-database';
import type { Executor } from './transaction';

/** A prepared statement's name: a digest of its SQL text, so two different texts never share a name. */
function statementName(sql: string): string {
  return `q_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
}

/** Stands for the i-th value of a statement compiled once (SLOT + i), replaced at each run. */
const SLOT = '\u0000value ';

/**
 * A hot statement whose text never changes, compiled by knex once per process and run as a named
 * prepared statement on PostgreSQL, so each pooled connection parses and plans it once (for index
 * look-ups planning costs more than running); PGlite runs it unnamed. `build` writes it with
 * `slots[i]` where the i-th value goes, and each run only binds the values: compiling query
 * builders and nested raws on every call, and again for the name's digest, was a tenth of the
 * server's CPU on the conversion path.
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

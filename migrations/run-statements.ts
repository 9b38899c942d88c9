import type { Knex } from 'knex';

/**
 * Runs a migration's SQL one statement at a time: the embedded PGlite driver uses the extended
 * protocol, which takes a single statement per query. Statements end with a semicolon at line end.
 */
export async function runStatements(knex: Knex, sql: string): Promise<void> {
  const statements = sql
    .split(/;\s*$/m)
    .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
    .filter((statement) => statement.length > 0);
  for (const statement of statements) await knex.raw(statement);
}

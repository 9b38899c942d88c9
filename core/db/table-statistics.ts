import type { Knex } from 'knex';

/**
 * Keeps the planner's statistics of our tables where PostgreSQL's autovacuum does not, or not yet:
 *
 * - On a new database, a table that has never been analysed is planned as if it were empty. The
 *   plans each connection caches then — the foreign-key checks' among them — can pick an index that
 *   reads every row of the brand (a conversion's checks went through `conversions_by_advocate` for
 *   a look-up by primary key: 1,300 rows read per check after a few thousand orders), and keep it
 *   until statistics change. Autovacuum's first ANALYZE comes up to a minute after the first writes
 *   (autovacuum_naptime); ingest on a fresh database ran at half speed and database CPU per order
 *   was four times its steady value until then (docs/development/performance.md, issue 32).
 * - The embedded database (PGlite) runs no autovacuum at all: without this, its tables would
 *   never be analysed.
 *
 * A table is analysed by autovacuum's own rule (more rows changed since its last ANALYZE than 50 +
 * 10 % of its rows); on PostgreSQL only while it has never been analysed, after which autovacuum
 * keeps it. Returns the tables analysed.
 */
export async function analyzeStaleTables(db: Knex, options: { everyTable: boolean }): Promise<string[]> {
  const { rows } = await db.raw<{ rows: Array<{ relname: string }> }>(
    `SELECT relname FROM pg_stat_user_tables
      WHERE schemaname = current_schema()
        AND n_mod_since_analyze > 50 + 0.1 * n_live_tup
        AND (? OR (last_analyze IS NULL AND last_autoanalyze IS NULL))
      ORDER BY relname`,
    [options.everyTable],
  );
  const tables = rows.map((row) => row.relname);
  for (const table of tables) await db.raw('ANALYZE ??', [table]);
  return tables;
}

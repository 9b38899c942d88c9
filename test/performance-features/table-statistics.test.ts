import type { Knex } from 'knex';
import pino from 'pino';
import { analyzeStaleTables } from '../../core/db/table-statistics';
import { startStatisticsWorker } from '../../server/statistics-worker';
import { testDatabase } from '../helpers/test-database';

// A fresh table is planned as if empty until it is analysed; autovacuum's first ANALYZE comes a
// minute late on PostgreSQL and never on the embedded database, so the service analyses it.
let db: Knex;
/**
 * The tables of the first two tests live in a schema of their own: the servers other test files
 * start on a shared database run the same worker on their schema, and must not analyse these first.
 */
const SCHEMA = `statistics_probe_${Math.random().toString(36).slice(2, 10)}`;
const tables: string[] = [];
beforeAll(async () => {
  db = await testDatabase();
  await db.raw(`CREATE SCHEMA ${SCHEMA}`);
});
afterAll(async () => {
  for (const table of tables) await db.schema.dropTableIfExists(table);
  await db.raw(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
});

async function freshTable(rows: number, schema = SCHEMA): Promise<string> {
  const table = `${schema}.probe_${Math.random().toString(36).slice(2, 10)}`;
  if (schema === 'public') tables.push(table);
  await db.raw(`CREATE TABLE ${table} (brand_id uuid NOT NULL, id integer NOT NULL, PRIMARY KEY (brand_id, id))`);
  await addRows(table, 0, rows);
  return table;
}

async function addRows(table: string, from: number, count: number): Promise<void> {
  await db.raw(`INSERT INTO ${table} SELECT gen_random_uuid(), g FROM generate_series(?::int, ?::int) AS g`, [from + 1, from + count]);
}

const statsOf = async (table: string) =>
  (await db.raw('SELECT n_mod_since_analyze::int AS changed, last_analyze FROM pg_stat_user_tables WHERE schemaname || \'.\' || relname = ?', [table])).rows[0] as
    | { changed: number; last_analyze: Date | null }
    | undefined;

/** The tables analysed, looked for in the test's own schema (`table`'s name without it). */
async function analysedInSchema(everyTable: boolean): Promise<string[]> {
  return db.transaction(async (trx) => {
    await trx.raw(`SET LOCAL search_path = ${SCHEMA}`);
    return (await analyzeStaleTables(trx, { everyTable })).map((name) => `${SCHEMA}.${name}`);
  });
}

/** A backend reports its changes when it goes idle, at most once a second. */
async function untilChanged(table: string, rows: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (((await statsOf(table))?.changed ?? 0) < rows) {
    if (Date.now() > deadline) throw new Error(`${table}: ${rows} changed rows never showed in pg_stat_user_tables`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it('analyses a table that has gained rows and was never analysed, once', async () => {
  const table = await freshTable(300);
  await untilChanged(table, 300);
  expect(await analysedInSchema(false)).toContain(table);
  expect((await statsOf(table))?.last_analyze).not.toBeNull();
  expect(await analysedInSchema(false)).not.toContain(table);

  // Autovacuum keeps an analysed table on PostgreSQL; on the embedded database (everyTable) the
  // service applies autovacuum's rule itself: more than 50 + 10 % of its rows changed.
  await addRows(table, 300, 40);
  await untilChanged(table, 40);
  expect(await analysedInSchema(true)).not.toContain(table);
  await addRows(table, 340, 60);
  await untilChanged(table, 100);
  expect(await analysedInSchema(false)).not.toContain(table);
  expect(await analysedInSchema(true)).toContain(table);
});

it('leaves a table with a few rows alone', async () => {
  const table = await freshTable(20);
  await untilChanged(table, 20);
  expect(await analysedInSchema(true)).not.toContain(table);
});

it("is a server worker: a new table's rows are analysed within its next look", async () => {
  const worker = startStatisticsWorker({ db: db as never, logger: pino({ level: 'silent' }), intervalMs: 100 });
  try {
    const table = await freshTable(500, 'public');
    const deadline = Date.now() + 10_000;
    while (!(await statsOf(table))?.last_analyze) {
      if (Date.now() > deadline) throw new Error(`${table} was not analysed by the worker`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await worker.stop();
  }
});

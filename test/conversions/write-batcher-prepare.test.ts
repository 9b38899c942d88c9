import type { Knex } from 'knex';
import { createWriteBatcher } from '../../core/db/write-batcher';
import { testDatabase } from '../helpers/test-database';

describe('the write batcher’s per-batch prepare step', () => {
  let db: Knex;
  beforeAll(async () => {
    db = await testDatabase();
  });

  // Reads in the transaction what the items were given: their own numbers, doubled by PostgreSQL.
  const doubled = async (trx: Knex.Transaction, items: number[]) => {
    if (items.includes(13)) await trx.raw('SELECT 1 / 0'); // a read that fails for the whole batch because of one item
    const { rows } = await trx.raw('SELECT n, n * 2 AS twice FROM unnest(?::integer[]) AS n', [items]);
    return new Map((rows as Array<{ n: number; twice: number }>).map((row) => [row.n, row.twice]));
  };

  it('runs once for the whole batch and hands its result to every item', async () => {
    const prepared: number[][] = [];
    const batcher = createWriteBatcher<number, number, Map<number, number>>(db, {
      maxWaitMs: 100,
      prepare: (trx, items) => (prepared.push(items), doubled(trx, items)),
      write: async (_trx, n, batch) => batch.get(n)!,
    });
    const results = await Promise.all([3, 1, 2].map((n) => batcher.submit(n)));

    expect(results).toEqual([6, 2, 4]);
    expect(prepared).toEqual([[3, 1, 2]]);
  });

  it('when the batch’s read fails, prepares each item alone: only the item that breaks the read fails', async () => {
    const batcher = createWriteBatcher<number, number, Map<number, number>>(db, {
      maxWaitMs: 100,
      prepare: doubled,
      write: async (_trx, n, batch) => batch.get(n)!,
    });
    const outcomes = await Promise.allSettled([4, 13, 5].map((n) => batcher.submit(n)));

    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: 8 });
    expect(outcomes[1]).toMatchObject({ status: 'rejected', reason: { code: '22012' } });
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: 10 });
  });
});

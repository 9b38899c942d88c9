import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import pino from 'pino';
import { createDatabase, isEmbedded } from '../../core/db/create-database';
import { BatchQueueFull, createWriteBatcher } from '../../core/db/write-batcher';
import { createApp } from '../../server/app';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { realPostgres } from '../helpers/real-postgres';
import { testConfig } from '../helpers/test-app';
import { testDatabase } from '../helpers/test-database';


interface Served {
  post(headers: Record<string, string>, body: object): Promise<{ status: number; body: { data?: Record<string, unknown>; error?: string } }>;
  close(): Promise<void>;
}

async function serve(db: Knex): Promise<Served> {
  // A window wide enough that requests sent together on a busy machine surely share a batch.
  const app = createApp({ db, config: testConfig({ writeBatch: { maxWaitMs: 100 } }), logger: pino({ level: 'silent' }) });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/track/conversion`;
  return {
    async post(headers, body) {
      const response = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown> } };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const order = (code: string, orderId: string, email = `${orderId}@example.com`) => ({ email, order_id: orderId, order_value: 50, referral_code: code });

describe('POST /api/v1/track/conversion, requests written together in one transaction', () => {
  it('answers a duplicate, a bad item and good items of one batch each on their own, and stores only the good', async () => {
    const db = await testDatabase();
    const served = await serve(db);
    try {
      const brand = await givenBrand(db, { reward_type: 'fixed', reward_value: 5, reward_hold_days: 0 });
      const advocate = await givenAdvocate(db, brand.brandId);
      const [repeated, good] = [uniqueOrderId(), uniqueOrderId()];
      const [first, second, bad, alone] = await Promise.all([
        served.post(brand.headers, order(advocate.code, repeated)),
        served.post(brand.headers, order(advocate.code, repeated)),
        served.post(brand.headers, order('NO-SUCH-CODE', uniqueOrderId())),
        served.post(brand.headers, order(advocate.code, good)),
      ]);

      expect([first.status, second.status].sort()).toEqual([200, 201]);
      const [created, duplicate] = first.status === 201 ? [first, second] : [second, first];
      expect(duplicate.body.data).toMatchObject({ id: created.body.data!.id, duplicate: true });
      expect(bad.status).toBe(404);
      expect(bad.body.error).toBe('referral_code NO-SUCH-CODE not found');
      expect(alone.status).toBe(201);
      expect(alone.body.data).toMatchObject({ order_id: good, duplicate: false, referrer_reward_paid: 5 });

      const rows: Array<{ order_id: string; created_at: Date }> = await db('conversions').where({ brand_id: brand.brandId }).select('order_id', 'created_at');
      expect(rows.map((row) => row.order_id).sort()).toEqual([repeated, good].sort());
      // now() is the transaction's start: equal timestamps mean one transaction wrote both.
      expect(rows[0]!.created_at.getTime()).toBe(rows[1]!.created_at.getTime());
      expect(await db('reward_ledger').where({ brand_id: brand.brandId, kind: 'credit' })).toHaveLength(2);
    } finally {
      await served.close();
    }
  });

  it('decides a race between two server instances on one PostgreSQL by the unique key: one 201 per order, the rest duplicates', async () => {
    const shared = await realPostgres();
    const other = createDatabase({ databaseUrl: (shared.db.client.config as { connection: string }).connection });
    const [one, two] = [await serve(shared.db), await serve(other)];
    try {
      const brand = await givenBrand(shared.db, { reward_type: 'fixed', reward_value: 7, reward_hold_days: 0 });
      const advocate = await givenAdvocate(shared.db, brand.brandId);
      const [x, y] = [uniqueOrderId(), uniqueOrderId()];
      // Each instance gets both orders in the opposite order, several times over.
      const sends = Array.from({ length: 6 }, () => [
        one.post(brand.headers, order(advocate.code, x)),
        one.post(brand.headers, order(advocate.code, y)),
        two.post(brand.headers, order(advocate.code, y)),
        two.post(brand.headers, order(advocate.code, x)),
      ]).flat();
      const answers = await Promise.all(sends);

      for (const id of [x, y]) {
        const mine = answers.filter((answer) => answer.body.data?.order_id === id);
        expect(mine).toHaveLength(12);
        expect(mine.filter((answer) => answer.status === 201)).toHaveLength(1);
        expect(mine.filter((answer) => answer.status === 200 && answer.body.data!.duplicate === true)).toHaveLength(11);
        expect(new Set(mine.map((answer) => answer.body.data!.id)).size).toBe(1);
      }
      expect(await shared.db('conversions').where({ brand_id: brand.brandId })).toHaveLength(2);
      const credits = await shared.db('reward_ledger').where({ brand_id: brand.brandId, kind: 'credit' }).sum({ total: 'amount' });
      expect(credits[0]!.total).toBe('14.00');
    } finally {
      await one.close();
      await two.close();
      await other.destroy();
      await shared.close();
    }
  });
});

describe('the write batcher', () => {
  let db: Knex;
  const table = `batcher_probe_${process.pid}`;
  beforeAll(async () => {
    db = await testDatabase();
    await db.raw(`CREATE TABLE IF NOT EXISTS ${table} (n integer, batch_started timestamptz DEFAULT now(), CONSTRAINT ${table}_once UNIQUE (n) DEFERRABLE INITIALLY DEFERRED)`);
  });
  afterAll(() => db.raw(`DROP TABLE IF EXISTS ${table}`));

  const insert = (trx: Knex.Transaction, n: number) => trx(table).insert({ n });

  it('rolls back only the item whose statement failed, and commits its neighbours together', async () => {
    const batcher = createWriteBatcher<{ n: number; fail: boolean }, number>(db, {
      maxWaitMs: 50,
      write: async (trx, { n, fail }) => {
        await insert(trx, n);
        if (fail) await trx.raw('SELECT 1 / 0'); // aborts the transaction, after a write
        return n;
      },
    });
    const outcomes = await Promise.allSettled([101, 102, 103].map((n) => batcher.submit({ n, fail: n === 102 })));

    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: 101 });
    expect(outcomes[1]).toMatchObject({ status: 'rejected', reason: { code: '22012' } });
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: 103 });
    const rows: Array<{ n: number; batch_started: Date }> = await db(table).whereIn('n', [101, 102, 103]).orderBy('n');
    expect(rows.map((row) => row.n)).toEqual([101, 103]);
    expect(rows[0]!.batch_started.getTime()).toBe(rows[1]!.batch_started.getTime());
  });

  it('writes a batch with writeAll in one go, and when writeAll fails, writes each item alone with write so only the bad one fails', async () => {
    const wroteAll: number[][] = [];
    const options = {
      maxWaitMs: 50,
      writeAll: async (trx: Knex.Transaction, items: number[]) => {
        wroteAll.push(items);
        await trx(table).insert(items.map((n) => ({ n })));
        if (items.includes(503)) await trx.raw('SELECT 1 / 0');
        return items.map((n) => n * 10);
      },
      write: async (trx: Knex.Transaction, n: number) => {
        await insert(trx, n);
        if (n === 503) await trx.raw('SELECT 1 / 0');
        return n;
      },
    };
    const batcher = createWriteBatcher<number, number>(db, options);

    // Together, answered by position from writeAll.
    expect(await Promise.all([501, 502].map((n) => batcher.submit(n)))).toEqual([5010, 5020]);
    const failing = await Promise.allSettled([504, 503, 505].map((n) => batcher.submit(n)));

    expect(wroteAll).toEqual([[501, 502], [504, 503, 505]]);
    // The failed writeAll kept nothing; write answered the neighbours (not ×10) and failed 503 alone.
    expect(failing[0]).toEqual({ status: 'fulfilled', value: 504 });
    expect(failing[1]).toMatchObject({ status: 'rejected', reason: { code: '22012' } });
    expect(failing[2]).toEqual({ status: 'fulfilled', value: 505 });
    expect(await db(table).whereIn('n', [501, 502, 503, 504, 505]).orderBy('n').pluck('n')).toEqual([501, 502, 504, 505]);
  });

  it('writes an item at once when nothing else is being written, and under load lets the next item wait busyWaitMs for company', async () => {
    const batches: number[][] = [];
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const options = (busyWaitMs: number) => ({
      busyWaitMs,
      write: async () => 0,
      writeAll: async (trx: Knex.Transaction, items: number[]) => {
        batches.push(items);
        await trx(table).insert(items.map((n) => ({ n })));
        if (items.includes(601) || items.includes(611)) await sleep(400); // keeps the first batch in flight
        return items;
      },
    });
    const run = async (busyWaitMs: number, [first, second, third]: number[]) => {
      const batcher = createWriteBatcher<number, number>(db, options(busyWaitMs));
      const answers = [batcher.submit(first!)];
      await sleep(50); // the first batch is being written
      answers.push(batcher.submit(second!));
      await sleep(30);
      answers.push(batcher.submit(third!));
      return Promise.all(answers);
    };

    expect(await run(300, [601, 602, 603])).toEqual([601, 602, 603]);
    // The same arrivals without the busy wait: the second goes alone at the next turn of the loop.
    expect(await run(0, [611, 612, 613])).toEqual([611, 612, 613]);
    // The embedded database writes one batch at a time: there the later two wait for the first anyway.
    expect(batches).toEqual(isEmbedded(db) ? [[601], [602, 603], [611], [612, 613]] : [[601], [602, 603], [611], [612], [613]]);
  });

  /** A write that inserts its item, and for `victim` is picked as a deadlock victim the first `times` times. */
  function deadlockingWrite(victim: number, times: number) {
    const deadlocks = { count: 0 };
    const write = async (trx: Knex.Transaction, n: number) => {
      await insert(trx, n);
      if (n === victim && deadlocks.count < times) {
        deadlocks.count += 1;
        throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      }
      return n;
    };
    return { write, deadlocks };
  }

  it('writes a batch again when PostgreSQL picks it as a deadlock victim (twice running), and answers each item once', async () => {
    const { write, deadlocks } = deadlockingWrite(402, 2);
    const batcher = createWriteBatcher<number, number>(db, { maxWaitMs: 50, write });
    const outcomes = await Promise.allSettled([401, 402].map((n) => batcher.submit(n)));

    expect(outcomes).toEqual([
      { status: 'fulfilled', value: 401 },
      { status: 'fulfilled', value: 402 },
    ]);
    expect(deadlocks.count).toBe(2);
    expect(await db(table).whereIn('n', [401, 402]).orderBy('n')).toHaveLength(2);
  });

  it('answers a batch answerEarly can answer without a transaction; else hands its read to the first attempt only, and a throw takes the usual path', async () => {
    const prepared: Array<string | undefined> = [];
    let early: 'answer' | 'read' | 'throw' = 'answer';
    const batcher = createWriteBatcher<number, number, undefined, string>(db, {
      maxWaitMs: 50,
      answerEarly: async (_db, items) => {
        if (early === 'throw') throw new Error('the early read failed');
        return early === 'answer' ? { results: items.map((n) => -n) } : { read: `read ${items.join(',')}` };
      },
      prepare: async (_trx, _items, read) => {
        prepared.push(read);
        return undefined;
      },
      write: deadlockingWrite(702, 1).write,
    });

    expect(await Promise.all([701, 702].map((n) => batcher.submit(n)))).toEqual([-701, -702]);
    expect(prepared).toEqual([]);
    expect(await db(table).whereIn('n', [701, 702])).toHaveLength(0);

    early = 'read';
    expect(await Promise.all([701, 702].map((n) => batcher.submit(n)))).toEqual([701, 702]);
    // The deadlocked first attempt had the early read; the retry read afresh.
    expect(prepared).toEqual(['read 701,702', undefined]);

    early = 'throw';
    expect(await batcher.submit(703)).toBe(703);
    expect(prepared.at(-1)).toBeUndefined();
  });

  it('acknowledges nothing of a batch whose commit fails', async () => {
    const batcher = createWriteBatcher<number, number>(db, { maxWaitMs: 50, write: async (trx, n) => (await insert(trx, n), n) });
    // The unique constraint is deferred: the two writes succeed, the COMMIT fails.
    const outcomes = await Promise.allSettled([201, 201].map((n) => batcher.submit(n)));

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(outcomes[0]).toMatchObject({ reason: { code: '23505' } });
    expect(await db(table).where({ n: 201 })).toHaveLength(0);
  });

  it('refuses an item at once when the queue is full, instead of letting it pile up', async () => {
    const batcher = createWriteBatcher<number, number>(db, { maxWaitMs: 50, maxQueue: 2, write: async (trx, n) => (await insert(trx, n), n) });
    const outcomes = await Promise.allSettled([301, 302, 303].map((n) => batcher.submit(n)));

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(BatchQueueFull);
  });
});

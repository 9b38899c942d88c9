import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { lockKey, tryLockKeys } from '../../core/db/advisory-lock';
import { type RealPostgres, realPostgres } from '../helpers/real-postgres';

// Two sessions at once need a real PostgreSQL: PGlite has one connection, so its transactions
// never overlap.
let postgres: RealPostgres;
beforeAll(async () => {
  postgres = await realPostgres();
});
afterAll(() => postgres.close());

/** Transactions a test left open (a failed expectation skips its commit): ended after each test. */
const open = new Set<Knex.Transaction>();
afterEach(async () => {
  for (const trx of open) await trx.rollback();
  open.clear();
});

/** Runs `work` in a transaction of its own session, left open (holding its locks) until `end(trx)`. */
async function inOpenTransaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<[T, Knex.Transaction]> {
  const trx = await postgres.db.transaction();
  open.add(trx);
  return [await work(trx), trx];
}

async function end(trx: Knex.Transaction): Promise<void> {
  open.delete(trx);
  await trx.commit();
}

describe('advisory locks on keys (core/db/advisory-lock.ts)', () => {
  it('tryLockKeys takes every key or reports another holder of any of them, without waiting', async () => {
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const [first, holder] = await inOpenTransaction((trx) => tryLockKeys(trx, [a, b]));
    expect(first).toBe(true);
    const [overlapping, other] = await inOpenTransaction((trx) => tryLockKeys(trx, [b, c]));
    expect(overlapping).toBe(false);
    await end(other);
    const [apart, third] = await inOpenTransaction((trx) => tryLockKeys(trx, [c]));
    expect(apart).toBe(true);
    await end(third);
    await end(holder);
    const [afterwards, last] = await inOpenTransaction((trx) => tryLockKeys(trx, [a, b, c]));
    expect(afterwards).toBe(true);
    await end(last);
  });

  it('tryLockKeys sees the lock lockKey holds on the same key (one hash for both)', async () => {
    const key = `report-day:${randomUUID()}:2026-11-27`;
    const [, holder] = await inOpenTransaction((trx) => lockKey(trx, key));
    const [taken, other] = await inOpenTransaction((trx) => tryLockKeys(trx, [key]));
    expect(taken).toBe(false);
    await end(other);
    await end(holder);
  });
});

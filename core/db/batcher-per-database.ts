import type { Knex } from 'knex';
import type { WriteBatcher } from './write-batcher';

/**
 * One batcher per database for a use case, made on first use (with that caller's options), so
 * every request of the process shares its transactions; keyed weakly, so a closed database's goes.
 */
export function batcherPerDatabase<Item, Result, Options>(
  make: (db: Knex, options: Options) => WriteBatcher<Item, Result>,
): (db: Knex, options: Options) => WriteBatcher<Item, Result> {
  const batchers = new WeakMap<Knex, WriteBatcher<Item, Result>>();
  return (db, options) => {
    let batcher = batchers.get(db);
    if (!batcher) batchers.set(db, (batcher = make(db, options)));
    return batcher;
  };
}

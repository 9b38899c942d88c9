import type { Knex } from 'knex';
import type { Brand } from '../brands/brand';
import { type WriteBatcher, type WriteBatcherOptions, createWriteBatcher } from '../db/write-batcher';
import { type PaidOrderInput, type PaidOrderResult, recordPaidOrder } from './record-paid-order';

export interface PaidOrder {
  brand: Brand;
  order: PaidOrderInput;
}

export type PaidOrderBatchOptions = Omit<WriteBatcherOptions<PaidOrder, PaidOrderResult>, 'write' | 'keyOf'>;

/** An order's identity: the unique key its row is written under (order id, else content hash). */
function orderKey({ brand, order }: PaidOrder): string {
  const { order_id, content_hash } = order.conversion;
  return `${brand.brand_id}:${order_id !== null ? `o:${order_id}` : `h:${content_hash ?? ''}`}`;
}

const batchers = new WeakMap<Knex, WriteBatcher<PaidOrder, PaidOrderResult>>();

/**
 * recordPaidOrder with group commit: the one batcher of this database (created with `options` on
 * first use), so every request of the process shares its transactions.
 */
export function paidOrderBatcher(db: Knex, options: PaidOrderBatchOptions = {}): WriteBatcher<PaidOrder, PaidOrderResult> {
  let batcher = batchers.get(db);
  if (!batcher) {
    batcher = createWriteBatcher(db, { ...options, keyOf: orderKey, write: (trx, { brand, order }) => recordPaidOrder(trx, brand, order) });
    batchers.set(db, batcher);
  }
  return batcher;
}

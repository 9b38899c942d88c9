import type { Knex } from 'knex';
import { type WriteBatcher, type WriteBatcherOptions, createWriteBatcher } from '../db/write-batcher';
import { PaidOrderBatch } from './paid-order-batch';
import { type PaidOrder, type PaidOrderResult, writePaidOrder } from './record-paid-order';

export type { PaidOrder } from './record-paid-order';

export type PaidOrderBatchOptions = Omit<WriteBatcherOptions<PaidOrder, PaidOrderResult, PaidOrderBatch>, 'write' | 'keyOf' | 'prepare'>;

/** An order's identity: the unique key its row is written under (order id, else content hash). */
function orderKey({ brand, order }: PaidOrder): string {
  const { order_id, content_hash } = order.conversion;
  return `${brand.brand_id}:${order_id !== null ? `o:${order_id}` : `h:${content_hash ?? ''}`}`;
}

/**
 * Paid orders with group commit: the app makes one, so every request of the process shares its
 * transactions. Each batch's look-ups are made once for all its orders (PaidOrderBatch.read), then
 * each order is written (writePaidOrder).
 */
export function createPaidOrderBatcher(db: Knex, options: PaidOrderBatchOptions = {}): WriteBatcher<PaidOrder, PaidOrderResult> {
  return createWriteBatcher(db, { ...options, keyOf: orderKey, prepare: PaidOrderBatch.read, write: writePaidOrder });
}

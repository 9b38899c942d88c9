import type { Knex } from 'knex';
import { type WriteBatcher, type WriteBatcherOptions, createWriteBatcher } from '../db/write-batcher';
import { answerRepeatsAlone } from './answer-repeat';
import type { PaidOrder, PaidOrderResult } from './paid-order';
import { PaidOrderBatch } from './paid-order-batch';
import { writePaidOrder, writePaidOrders } from './record-paid-order';

export type PaidOrderBatchOptions = Omit<WriteBatcherOptions<PaidOrder, PaidOrderResult, PaidOrderBatch>, 'write' | 'writeAll' | 'keyOf' | 'prepare' | 'answerEarly'>;

/** An order's identity: the unique key its row is written under (order id, else content hash). */
function orderKey({ brand, order }: PaidOrder): string {
  const { order_id, content_hash } = order.conversion;
  return `${brand.brand_id}:${order_id !== null ? `o:${order_id}` : `h:${content_hash ?? ''}`}`;
}

/**
 * Paid orders with group commit: the app makes one, so every request of the process shares its
 * transactions. A batch of repeats that write nothing is answered from one read, with no
 * transaction (answerRepeatsAlone); any other batch's look-ups are made once for all its orders
 * (PaidOrderBatch.read, given the conversions that read found), then
 * its orders are decided in order and the new conversions written in one statement
 * (writePaidOrders); a batch that fails is written again order by order (writePaidOrder).
 */
export function createPaidOrderBatcher(db: Knex, options: PaidOrderBatchOptions = {}): WriteBatcher<PaidOrder, PaidOrderResult> {
  return createWriteBatcher(db, { ...options, keyOf: orderKey, answerEarly: answerRepeatsAlone, prepare: PaidOrderBatch.read, write: writePaidOrder, writeAll: writePaidOrders });
}

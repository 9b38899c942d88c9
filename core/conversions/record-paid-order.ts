import type { Knex } from 'knex';
import type { Brand } from '../brands/brand';
import { BatchedPaidOrderStore } from './batched-paid-order-store';
import type { PaidOrder, PaidOrderInput, PaidOrderResult } from './paid-order';
import { PaidOrderBatch } from './paid-order-batch';

/**
 * The ways in to the paid-order use case (convertPaidOrder), all as batches: whoever reports paid
 * orders (POST /track/conversion through the batcher, a Shopify run, a Medusa snapshot, tests)
 * has them converted one after another, in one transaction, against one BatchedPaidOrderStore.
 */

/** A paid order alone (Medusa, tests): a batch of one, reading its own look-ups. */
export async function recordPaidOrder(trx: Knex.Transaction, brand: Brand, order: PaidOrderInput): Promise<PaidOrderResult> {
  const [result] = await recordPaidOrders(trx, [{ brand, order }]);
  return result!;
}

/** Paid orders whose look-ups nobody read yet: read together (PaidOrderBatch.read), then written as one batch. */
export async function recordPaidOrders(trx: Knex.Transaction, items: PaidOrder[]): Promise<PaidOrderResult[]> {
  return writePaidOrders(trx, items, await PaidOrderBatch.read(trx, items));
}

/** One order of a batch alone: the batcher's way of writing item by item when the batch's statement failed. */
export async function writePaidOrder(trx: Knex.Transaction, item: PaidOrder, batch: PaidOrderBatch): Promise<PaidOrderResult> {
  const [result] = await writePaidOrders(trx, [item], batch);
  return result!;
}

/** Paid orders whose look-ups were read together, converted in order; their new conversions go in one statement. */
export async function writePaidOrders(trx: Knex.Transaction, items: PaidOrder[], batch: PaidOrderBatch): Promise<PaidOrderResult[]> {
  const store = new BatchedPaidOrderStore(trx, batch);
  for (const item of items) await store.run(item);
  return store.answered();
}

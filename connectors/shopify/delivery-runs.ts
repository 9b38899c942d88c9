import type { Knex } from 'knex';
import { type Brand, findBrands } from '../../core/brands/brand';
import { PaidOrderBatch } from '../../core/conversions/paid-order-batch';
import type { PaidOrder } from '../../core/conversions/paid-order';
import type { Delivery } from './inbox';
import { parseLosslessJson } from './parse-lossless-json';
import { paidOrderOf } from './topics/orders-paid';
import type { DeliveryRunFacts } from './topics/topic-handler';

const PAID = 'orders/paid';

/** What was read for a run's deliveries together. */
export interface DeliveryRun {
  brands: Map<string, Brand>;
  /** Each delivery's body, parsed once (absent: it did not parse; its handler says why). */
  bodies: Map<string, unknown>;
  /** Null: not read (a run of one order reads them as cheaply without the savepoint) or the read failed: each order reads its own. */
  facts: DeliveryRunFacts | null;
}

/**
 * A claimed batch in runs: consecutive orders/paid deliveries share one run, any other delivery is
 * a run of its own. Only orders are written within a run, and PaidOrderBatch keeps its facts
 * current as they are; a refund, a cancel or a redaction may change those facts in the database,
 * so the orders after it read them again.
 */
export function runsOf(batch: Delivery[]): Delivery[][] {
  const runs: Delivery[][] = [];
  for (const delivery of batch) {
    const last = runs.at(-1);
    if (last && delivery.topic === PAID && last[0]!.topic === PAID) last.push(delivery);
    else runs.push([delivery]);
  }
  return runs;
}

/**
 * A run of orders/paid deliveries read at once: their brands in one statement, each body parsed
 * once, and the orders' look-ups in a few statements (PaidOrderBatch.read), behind a savepoint so
 * that a failed read leaves the transaction usable. Null for a run of another topic: its handler
 * reads what it needs.
 */
export async function readRun(trx: Knex.Transaction, deliveries: Delivery[]): Promise<DeliveryRun | null> {
  if (deliveries[0]!.topic !== PAID) return null;
  const brands = await findBrands(trx, deliveries.map((delivery) => delivery.brand_id));
  const bodies = new Map<string, unknown>();
  const orders: PaidOrder[] = [];
  for (const delivery of deliveries) {
    const brand = brands.get(delivery.brand_id);
    try {
      const body = parseLosslessJson(delivery.body);
      bodies.set(delivery.webhook_id, body);
      const paid = brand ? paidOrderOf(brand, delivery, body) : null;
      if (brand && paid && 'order' in paid) orders.push({ brand, order: paid.order });
    } catch {
      // A body or order that does not parse fails in its own processing, with its own error.
    }
  }
  // One order reads its own look-ups just as cheaply, without the savepoint.
  const facts = orders.length > 1 ? await readTogether(trx, orders) : null;
  return { brands, bodies, facts };
}

/** The orders' look-ups behind a savepoint: null when the read fails (each order then reads its own). */
async function readTogether(trx: Knex.Transaction, orders: PaidOrder[]): Promise<DeliveryRunFacts | null> {
  try {
    return { paidOrders: await trx.transaction((savepoint) => PaidOrderBatch.read(savepoint, orders)) };
  } catch {
    return null;
  }
}

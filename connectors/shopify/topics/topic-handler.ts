import type { Knex } from 'knex';
import type { Brand } from '../../../core/brands/brand';
import type { PaidOrderBatch } from '../../../core/conversions/paid-order-batch';
import type { Delivery } from '../inbox';

/** What processing a delivery did, kept on its inbox row (`outcome`, `result`). */
export interface HandlerOutcome {
  outcome: string;
  result?: Record<string, unknown>;
}

/** A delivery for a brand deleted since it arrived. */
export const BRAND_GONE: HandlerOutcome = { outcome: 'ignored: the brand no longer exists' };

/**
 * What a run of deliveries read together before any of them was processed: the look-ups of its
 * orders/paid deliveries (one PaidOrderBatch, kept current as each order is written).
 */
export interface DeliveryRunFacts {
  paidOrders: PaidOrderBatch;
}

/**
 * One webhook topic's processing: runs inside the delivery's transaction, through core use cases;
 * `facts`, when given, are the run's shared look-ups (connectors/shopify/delivery-runs.ts).
 */
export type TopicHandler = (trx: Knex.Transaction, brand: Brand, delivery: Delivery, body: unknown, facts?: DeliveryRunFacts) => Promise<HandlerOutcome>;

/**
 * The delivery cannot be processed yet but may be later (a refund whose order has not arrived:
 * deliveries can come out of order). After enough waiting it is closed with `giveUpOutcome`.
 */
export class RetryLater extends Error {
  constructor(
    message: string,
    readonly giveUpOutcome: string,
  ) {
    super(message);
    this.name = 'RetryLater';
  }
}

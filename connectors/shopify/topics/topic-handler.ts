import type { Knex } from 'knex';
import type { Brand } from '../../../core/brands/brand';
import type { Delivery } from '../inbox';

/** What processing a delivery did, kept on its inbox row (`outcome`, `result`). */
export interface HandlerOutcome {
  outcome: string;
  result?: Record<string, unknown>;
}

/** One webhook topic's processing: runs inside the delivery's transaction, through core use cases. */
export type TopicHandler = (trx: Knex.Transaction, brand: Brand, delivery: Delivery, body: unknown) => Promise<HandlerOutcome>;

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

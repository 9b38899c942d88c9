import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { ZodError } from 'zod';
import { findBrand } from '../../core/brands/brand';
import { DomainError } from '../../core/errors';
import type { Delivery } from './inbox';
import { parseLosslessJson } from './parse-lossless-json';
import { type HandlerOutcome, RetryLater } from './topics/topic-handler';
import { TOPIC_HANDLERS } from './topics/topic-handlers';

/** A failing delivery is tried this many times before it is marked `failed`. */
export const MAX_ATTEMPTS = 8;
/** A delivery waiting for another one (a refund for its order) waits this many attempts (about 4 h). */
export const WAIT_ATTEMPTS = 7;

/** Delay before attempt n+1 after n failed attempts: 10 s, 40 s, 160 s, … capped at 6 h. */
export function retryDelayMs(attempts: number): number {
  return Math.min(10_000 * 4 ** Math.max(0, attempts - 1), 6 * 3600_000);
}

export type DeliveryStatus = 'done' | 'retrying' | 'failed';

export interface ProcessOptions {
  /** Deliveries due at or before this moment are processed (tests move it forward). */
  now?: Date;
  /** At most this many deliveries in one call. */
  limit?: number;
  /** Only this brand's deliveries (an operator's `shopify inbox --process --brand`, tests). */
  brandId?: string;
  logger?: Logger;
}

export interface ProcessSummary {
  done: number;
  retrying: number;
  failed: number;
}

/**
 * Processes the deliveries due now, oldest first, each in its own short transaction (the embedded
 * database has one connection: nothing is held between deliveries). Safe to run from several
 * processes at once: a delivery being processed is locked, and the others skip it.
 */
export async function processInbox(db: Knex, options: ProcessOptions = {}): Promise<ProcessSummary> {
  const summary: ProcessSummary = { done: 0, retrying: 0, failed: 0 };
  // The database's clock, not Node's: a JS Date has only milliseconds, so a delivery stamped by
  // now() in the same millisecond would look not yet due.
  const dueBy = options.now ?? db.raw('now()');
  // The due deliveries as of now: one that fails is not tried again in the same call.
  const query = db('shopify_inbox')
    .select('brand_id', 'webhook_id')
    .where({ status: 'pending' })
    .andWhere('next_attempt_at', '<=', dueBy)
    .orderBy('received_at')
    .limit(options.limit ?? 500);
  if (options.brandId) query.andWhere({ brand_id: options.brandId });
  const due: DeliveryKey[] = await query;
  for (const key of due) {
    const processed = await processOne(db, key, { dueBy, logger: options.logger });
    if (processed) summary[processed.status] += 1;
  }
  return summary;
}

interface DeliveryKey {
  brand_id: string;
  webhook_id: string;
}

/** Processes one pending delivery now, whatever its due time (reconcile); null when not pending. */
export function processDeliveryNow(db: Knex, key: DeliveryKey, logger?: Logger): Promise<{ status: DeliveryStatus; outcome: string | null } | null> {
  return processOne(db, key, { dueBy: null, logger });
}

async function processOne(
  db: Knex,
  key: DeliveryKey,
  options: { dueBy: Date | Knex.Raw | null; logger?: Logger },
): Promise<{ status: DeliveryStatus; outcome: string | null } | null> {
  return db.transaction(async (trx) => {
    const query = trx('shopify_inbox').where({ ...key, status: 'pending' }).forUpdate().skipLocked();
    if (options.dueBy) query.andWhere('next_attempt_at', '<=', options.dueBy);
    const delivery: Delivery | undefined = await query.first();
    if (!delivery) return null;
    const status = await processDelivery(trx, delivery, options.logger);
    const row = await trx('shopify_inbox').where(key).first('outcome', 'last_error');
    return { status, outcome: row?.outcome ?? row?.last_error ?? null };
  });
}

/**
 * The handler's effects and the `done` mark commit together; a failure rolls the effects back
 * (savepoint) and records the attempt instead: retried with backoff, or `failed` when retrying
 * cannot help (the payload or the request is wrong) or the attempts are used up.
 */
async function processDelivery(trx: Knex.Transaction, delivery: Delivery, logger?: Logger): Promise<DeliveryStatus> {
  const key = { brand_id: delivery.brand_id, webhook_id: delivery.webhook_id };
  const attempts = delivery.attempts + 1;
  try {
    const handled = await trx.transaction((savepoint) => handleDelivery(savepoint, delivery));
    await close(trx, key, attempts, handled);
    return 'done';
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    if (error instanceof RetryLater && attempts >= WAIT_ATTEMPTS) {
      await close(trx, key, attempts, { outcome: error.giveUpOutcome });
      return 'done';
    }
    const permanent = !(error instanceof RetryLater) && (isBadInput(error) || attempts >= MAX_ATTEMPTS);
    logger?.[permanent ? 'error' : 'warn']({ err: error, webhook_id: delivery.webhook_id, topic: delivery.topic, attempts }, 'shopify delivery not processed');
    await trx('shopify_inbox')
      .where(key)
      .update({
        status: permanent ? 'failed' : 'pending',
        attempts,
        last_error: message.slice(0, 2000),
        next_attempt_at: trx.raw(`now() + make_interval(secs => ?)`, [retryDelayMs(attempts) / 1000]),
      });
    return permanent ? 'failed' : 'retrying';
  }
}

async function close(trx: Knex.Transaction, key: Record<string, string>, attempts: number, handled: HandlerOutcome): Promise<void> {
  await trx('shopify_inbox')
    .where(key)
    .update({
      status: 'done',
      attempts,
      outcome: handled.outcome,
      result: handled.result === undefined ? null : JSON.stringify(handled.result),
      last_error: null,
      processed_at: trx.fn.now(),
    });
}

async function handleDelivery(trx: Knex.Transaction, delivery: Delivery): Promise<HandlerOutcome> {
  const handler = TOPIC_HANDLERS[delivery.topic];
  if (!handler) return { outcome: `ignored: topic ${delivery.topic} is not handled` };
  const brand = await findBrand(trx, delivery.brand_id);
  if (!brand) return { outcome: 'ignored: the brand no longer exists' };
  return handler(trx, brand, delivery, parseLosslessJson(delivery.body));
}

/** The payload or what it asks for is wrong: trying again gives the same answer. */
function isBadInput(error: unknown): boolean {
  return error instanceof DomainError || error instanceof ZodError || error instanceof SyntaxError;
}

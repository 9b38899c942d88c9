import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { ZodError } from 'zod';
import { findBrand } from '../../core/brands/brand';
import { isEmbedded } from '../../core/db/create-database';
import { DomainError } from '../../core/errors';
import { type DeliveryRun, readRun, runsOf } from './delivery-runs';
import type { Delivery } from './inbox';
import { parseLosslessJson } from './parse-lossless-json';
import { handleOrdersPaidRun } from './topics/orders-paid';
import { BRAND_GONE, type DeliveryRunFacts, type HandlerOutcome, RetryLater } from './topics/topic-handler';
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
  /** Batches worked on at once, each on its own connection (PostgreSQL only: PGlite has one). */
  concurrency?: number;
  logger?: Logger;
}

export interface ProcessSummary {
  done: number;
  retrying: number;
  failed: number;
}

// On PostgreSQL a batch is one transaction (one commit for many deliveries); the embedded
// database has one connection, so there a batch is one delivery and requests interleave.
const BATCH_SIZE = 25;
// Two lanes: the drain runs beside the acknowledgements Shopify waits for. With four, a 10,000-order
// burst was recorded no sooner (20.6–28.0 s against 20.0–33.1 s, 2026-11-24) while the ack p99
// rose over 50 ms (49–55 ms against 34–42 ms with two).
const CONCURRENCY = 2;

/**
 * Processes the deliveries due now, oldest first, in batches claimed with FOR UPDATE SKIP LOCKED
 * by several lanes at once, so it is safe to run from several processes too. A delivery is
 * claimed only when no earlier due delivery of the same order is still pending (being processed
 * elsewhere, or not yet reached): a refund or cancel never overtakes its order's paid.
 */
export async function processInbox(db: Knex, options: ProcessOptions = {}): Promise<ProcessSummary> {
  const summary: ProcessSummary = { done: 0, retrying: 0, failed: 0 };
  const embedded = isEmbedded(db);
  const batchSize = embedded ? 1 : BATCH_SIZE;
  let remaining = options.limit ?? 500;
  // One that fails is not tried again in the same call, even when `now` says it is due.
  const triedAndFailed: string[] = [];
  const lane = async () => {
    // Set after a delivery failed where it had no savepoint: the next batch is written with one per delivery.
    let isolated = false;
    while (remaining > 0) {
      const size = Math.min(batchSize, remaining);
      remaining -= size;
      let statuses: DeliveryStatus[];
      try {
        statuses = await db.transaction(async (trx) => {
          const batch = await claimDueBatch(trx, { dueBy: options.now ?? null, brandId: options.brandId, size, skip: triedAndFailed });
          const done: DeliveryStatus[] = [];
          const closed: Closed[] = [];
          for (const deliveries of runsOf(batch)) {
            const run = await readRun(trx, deliveries);
            if (run?.facts && !isolated) {
              done.push(...(await processRunTogether(trx, deliveries, closed, run, run.facts)));
              continue;
            }
            for (const delivery of deliveries) {
              const status = run && !isolated ? await processTogether(trx, delivery, closed, run) : await processDelivery(trx, delivery, closed, options.logger, run);
              if (status !== 'done') triedAndFailed.push(`${delivery.brand_id}:${delivery.webhook_id}`);
              done.push(status);
            }
          }
          await closeAll(trx, closed);
          return done;
        });
      } catch (error) {
        if (!(error instanceof FailedTogether)) throw error;
        // Nothing of that transaction was kept: the work is claimed again, each delivery isolated.
        remaining += size;
        isolated = true;
        continue;
      }
      isolated = false;
      remaining += size - statuses.length;
      for (const status of statuses) summary[status] += 1;
      if (statuses.length === 0) return; // nothing due that another lane or process does not hold
    }
  };
  const lanes = embedded ? 1 : (options.concurrency ?? CONCURRENCY);
  await Promise.all(Array.from({ length: lanes }, lane));
  return summary;
}

/**
 * Locks up to `size` due deliveries that nobody else holds, oldest first. The database's clock,
 * not Node's, when no `dueBy` is given: a JS Date has only milliseconds, so a delivery stamped by
 * now() in the same millisecond would look not yet due.
 */
async function claimDueBatch(
  trx: Knex.Transaction,
  options: { dueBy: Date | null; brandId?: string; size: number; skip: string[] },
): Promise<Delivery[]> {
  const dueBy = options.dueBy ? options.dueBy.toISOString() : null;
  const { rows } = await trx.raw(
    `SELECT i.* FROM shopify_inbox i
      WHERE i.status = 'pending' AND i.next_attempt_at <= coalesce(?::timestamptz, now())
        AND (?::uuid IS NULL OR i.brand_id = ?::uuid)
        AND (i.brand_id::text || ':' || i.webhook_id) NOT IN (SELECT jsonb_array_elements_text(?::jsonb))
        AND NOT EXISTS (
          SELECT 1 FROM shopify_inbox earlier
           WHERE i.order_id IS NOT NULL AND earlier.brand_id = i.brand_id AND earlier.order_id = i.order_id
             AND earlier.status = 'pending' AND earlier.next_attempt_at <= coalesce(?::timestamptz, now())
             AND (earlier.received_at, earlier.webhook_id) < (i.received_at, i.webhook_id))
      ORDER BY i.received_at, i.webhook_id
      LIMIT ?
      FOR UPDATE OF i SKIP LOCKED`,
    [dueBy, options.brandId ?? null, options.brandId ?? null, JSON.stringify(options.skip), dueBy, options.size],
  );
  return rows as Delivery[];
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
    const closed: Closed[] = [];
    const status = await processDelivery(trx, delivery, closed, options.logger);
    await closeAll(trx, closed);
    const row = await trx('shopify_inbox').where(key).first('outcome', 'last_error');
    return { status, outcome: row?.outcome ?? row?.last_error ?? null };
  });
}

/** A delivery of a run failed without a savepoint of its own: its transaction must not commit. */
class FailedTogether extends Error {
  constructor(readonly original: unknown) {
    super('a delivery failed in a run written without savepoints');
  }
}

/**
 * A delivery of a run, written without a savepoint (two round trips fewer): the common case, where
 * nothing fails. A failure rolls the whole transaction back (FailedTogether), and the lane writes
 * the work again with processDelivery, which records each delivery's failure on its own.
 */
async function processTogether(trx: Knex.Transaction, delivery: Delivery, closed: Closed[], run: DeliveryRun): Promise<DeliveryStatus> {
  try {
    closed.push(closing({ brand_id: delivery.brand_id, webhook_id: delivery.webhook_id }, delivery.attempts + 1, await handleDelivery(trx, delivery, run)));
    return 'done';
  } catch (error) {
    throw new FailedTogether(error);
  }
}

/**
 * A run of orders/paid deliveries whose look-ups were read together, written as one batch
 * (handleOrdersPaidRun: its new conversions in one statement), without savepoints; a failure
 * rolls the transaction back (FailedTogether) as in processTogether.
 */
async function processRunTogether(trx: Knex.Transaction, deliveries: Delivery[], closed: Closed[], run: DeliveryRun, facts: DeliveryRunFacts): Promise<DeliveryStatus[]> {
  try {
    const outcomes = await handleOrdersPaidRun(trx, deliveries.map((delivery) => ({ delivery, brand: run.brands.get(delivery.brand_id) ?? null, body: bodyOf(delivery, run) })), facts);
    deliveries.forEach((delivery, index) => closed.push(closing({ brand_id: delivery.brand_id, webhook_id: delivery.webhook_id }, delivery.attempts + 1, outcomes[index]!)));
    return deliveries.map(() => 'done');
  } catch (error) {
    throw new FailedTogether(error);
  }
}

/**
 * The handler's effects and the `done` mark (closeAll, with the transaction's others) commit
 * together; a failure rolls the effects back (savepoint) and records the attempt instead: retried
 * with backoff, or `failed` when retrying cannot help (the payload or the request is wrong) or the
 * attempts are used up.
 */
async function processDelivery(trx: Knex.Transaction, delivery: Delivery, closed: Closed[], logger?: Logger, run: DeliveryRun | null = null): Promise<DeliveryStatus> {
  const key = { brand_id: delivery.brand_id, webhook_id: delivery.webhook_id };
  const attempts = delivery.attempts + 1;
  try {
    const handled = await trx.transaction((savepoint) => handleDelivery(savepoint, delivery, run));
    closed.push(closing(key, attempts, handled));
    return 'done';
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    if (error instanceof RetryLater && attempts >= WAIT_ATTEMPTS) {
      closed.push(closing(key, attempts, { outcome: error.giveUpOutcome }));
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

/** A delivery done, to be marked so with the others of its transaction, by closeAll. */
interface Closed extends DeliveryKey {
  attempts: number;
  outcome: string;
  result: Record<string, unknown> | null;
}

function closing(key: DeliveryKey, attempts: number, handled: HandlerOutcome): Closed {
  return { ...key, attempts, outcome: handled.outcome, result: handled.result ?? null };
}

const CLOSE_SQL = `
UPDATE shopify_inbox AS i
   SET status = 'done', attempts = c.attempts, outcome = c.outcome, result = c.result, last_error = NULL, processed_at = now()
  FROM jsonb_to_recordset(?::jsonb) AS c(brand_id uuid, webhook_id text, attempts integer, outcome text, result jsonb)
 WHERE i.brand_id = c.brand_id AND i.webhook_id = c.webhook_id`;

/** The transaction's done deliveries marked in one statement, committed with their effects. */
async function closeAll(trx: Knex.Transaction, closed: Closed[]): Promise<void> {
  if (closed.length > 0) await trx.raw(CLOSE_SQL, [JSON.stringify(closed)]);
}

/** A delivery's handler, with its run's brand, parsed body and look-ups when the run read them. */
async function handleDelivery(trx: Knex.Transaction, delivery: Delivery, run: DeliveryRun | null): Promise<HandlerOutcome> {
  const handler = TOPIC_HANDLERS[delivery.topic];
  if (!handler) return { outcome: `ignored: topic ${delivery.topic} is not handled` };
  const brand = run ? (run.brands.get(delivery.brand_id) ?? null) : await findBrand(trx, delivery.brand_id);
  if (!brand) return BRAND_GONE;
  return handler(trx, brand, delivery, bodyOf(delivery, run), run?.facts ?? undefined);
}

/** The delivery's body: parsed once for its run, else now. */
function bodyOf(delivery: Delivery, run: DeliveryRun | null): unknown {
  return run?.bodies.has(delivery.webhook_id) ? run.bodies.get(delivery.webhook_id) : parseLosslessJson(delivery.body);
}

/** The payload or what it asks for is wrong: trying again gives the same answer. */
function isBadInput(error: unknown): boolean {
  return error instanceof DomainError || error instanceof ZodError || error instanceof SyntaxError;
}

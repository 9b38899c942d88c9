import type { Knex } from 'knex';
import { isEmbedded } from './create-database';

/**
 * Group commit in the service: writes submitted at about the same moment share one transaction
 * (one commit, one fsync), and each caller still gets its own outcome. A caller's promise settles
 * only after its batch has committed (or failed), so nothing is acknowledged that could be lost.
 */
export interface WriteBatcher<Item, Result> {
  submit(item: Item): Promise<Result>;
}

export interface WriteBatcherOptions<Item, Result, Batch = undefined, Early = never> {
  /**
   * Reads what the whole batch needs at once, in its transaction, before any item is written; runs
   * again on every attempt (a retry starts from a fresh read). Its result goes to every `write`,
   * which keeps it current as items are written. A throw here fails nobody of a batch of several:
   * the batch is written again item by item, and if its read fails again, each item is prepared
   * alone in its own savepoint. `early`: what answerEarly read for the batch's first attempt.
   */
  prepare?: (trx: Knex.Transaction, items: Item[], early?: Early) => Promise<Batch>;
  /**
   * Answers a batch that writes nothing without a transaction (no BEGIN, no COMMIT): runs first,
   * outside any transaction, and returns every item's result, or else what it read, which the
   * first attempt's `prepare` gets instead of reading it again (under READ COMMITTED a statement
   * just before BEGIN sees what the transaction's first would). A throw takes the usual path.
   */
  answerEarly?: (db: Knex, items: Item[]) => Promise<{ results: Result[] } | { read: Early }>;
  /** Writes one item inside the batch's transaction; a throw fails this item only. */
  write: (trx: Knex.Transaction, item: Item, batch: Batch) => Promise<Result>;
  /**
   * Writes the whole batch at once (set-based), answering each item by position, as `write` on
   * each item in turn would. A throw is treated as a failed item: the batch is written again, item
   * by item, with `write`, each behind its own savepoint.
   */
  writeAll?: (trx: Knex.Transaction, items: Item[], batch: Batch) => Promise<Result[]>;
  /**
   * Items are written in key order (same key: submission order), so two processes' batches take
   * row locks in one order and never deadlock each other on those keys.
   */
  keyOf?: (item: Item) => string;
  /** Most items per transaction; 1 turns batching off (one transaction per item). */
  maxBatch?: number;
  /** Batches written at once (each holds a pooled connection); PGlite has one connection. */
  maxInFlight?: number;
  /** Items waiting beyond this are refused at once (BatchQueueFull) instead of piling up. */
  maxQueue?: number;
  /** How long the first waiting item may wait for company; 0: the next turn of the event loop. */
  maxWaitMs?: number;
  /**
   * How long the first waiting item waits for company when company is likely: another batch is
   * being written, or the last batch had company and ended a moment ago (like PostgreSQL's
   * commit_delay, which applies only when other transactions are active). Under load batches grow
   * and the event loop wakes less often; a lone client's requests are still written at once.
   */
  busyWaitMs?: number;
}

/** The queue is full: the database is not keeping up. SQLSTATE 53000 (insufficient resources) marks it as an outage to retry. */
export class BatchQueueFull extends Error {
  readonly code = '53000';
  constructor(limit: number) {
    super(`more than ${limit} writes are waiting for the database`);
    this.name = 'BatchQueueFull';
  }
}

interface Waiting<Item, Result> {
  item: Item;
  /** performance.now() when it was submitted. */
  queuedAt: number;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

type Outcome<Result> = { ok: true; value: Result } | { ok: false; error: unknown };

/** A deadlock or serialization failure: PostgreSQL rolled the transaction back, and running it again is safe. */
function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/** A batch that ended this recently, with company, says more requests are on their way (busyWaitMs). */
const RECENT_MS = 10;

/** Attempts at a batch that meets a deadlock or serialization failure before its items are answered. */
const TRANSIENT_ATTEMPTS = 3;

/** An item failed in a batch written without savepoints: the transaction may be aborted. */
class ItemFailed extends Error {
  constructor(readonly original: unknown) {
    super('an item of the batch failed');
  }
}

function inKeyOrder<Item, Result>(batch: Waiting<Item, Result>[], keyOf?: (item: Item) => string): Waiting<Item, Result>[] {
  if (!keyOf) return batch;
  const keyed = batch.map((waiting, index) => ({ waiting, index, key: keyOf(waiting.item) }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.index - b.index));
  return keyed.map(({ waiting }) => waiting);
}

export function createWriteBatcher<Item, Result, Batch = undefined, Early = never>(
  db: Knex,
  options: WriteBatcherOptions<Item, Result, Batch, Early>,
): WriteBatcher<Item, Result> {
  const maxBatch = Math.max(1, options.maxBatch ?? 64);
  const maxInFlight = isEmbedded(db) ? 1 : Math.max(1, options.maxInFlight ?? 4);
  const maxQueue = options.maxQueue ?? 10_000;
  const maxWaitMs = options.maxWaitMs ?? 0;
  const busyWaitMs = options.busyWaitMs ?? 0;
  const queue: Waiting<Item, Result>[] = [];
  let inFlight = 0;
  let scheduled = false;
  // The last batch that ended: its size and when (performance.now()).
  let lastBatch = { size: 0, endedAt: -Infinity };

  const prepare = (trx: Knex.Transaction, batch: Waiting<Item, Result>[], early?: Early): Promise<Batch> =>
    options.prepare ? options.prepare(trx, batch.map(({ item }) => item), early) : Promise.resolve(undefined as Batch);

  // Fast path: no savepoints; the first failure sends the batch to writeIsolated instead.
  async function writeTogether(trx: Knex.Transaction, batch: Waiting<Item, Result>[], early?: Early): Promise<Outcome<Result>[]> {
    const outcomes: Outcome<Result>[] = [];
    const items = batch.map(({ item }) => item);
    let prepared: Batch;
    try {
      prepared = await prepare(trx, batch, early);
    } catch (error) {
      throw batch.length === 1 || isTransient(error) ? error : new ItemFailed(error);
    }
    try {
      if (options.writeAll) return (await options.writeAll(trx, items, prepared)).map((value) => ({ ok: true, value }));
      for (const item of items) outcomes.push({ ok: true, value: await options.write(trx, item, prepared) });
    } catch (error) {
      // A deadlock is the batch's, not the item's: the whole batch is written again.
      throw batch.length === 1 || isTransient(error) ? error : new ItemFailed(error);
    }
    return outcomes;
  }

  // The batch's read in a savepoint; when it fails, each item is read alone, in its own savepoint.
  async function prepareIsolated(trx: Knex.Transaction, batch: Waiting<Item, Result>[]): Promise<{ batch: Batch } | null> {
    if (!options.prepare) return { batch: undefined as Batch };
    try {
      return { batch: await trx.transaction((savepoint) => prepare(savepoint, batch)) };
    } catch {
      return null;
    }
  }

  // Each item behind its own savepoint: a failed statement rolls back that item alone.
  async function writeIsolated(trx: Knex.Transaction, batch: Waiting<Item, Result>[]): Promise<Outcome<Result>[]> {
    const outcomes: Outcome<Result>[] = [];
    const shared = await prepareIsolated(trx, batch);
    for (const waiting of batch) {
      const write = async (savepoint: Knex.Transaction) => options.write(savepoint, waiting.item, shared ? shared.batch : await prepare(savepoint, [waiting]));
      try {
        outcomes.push({ ok: true, value: await trx.transaction(write) });
      } catch (error) {
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  }

  async function writeOnce(batch: Waiting<Item, Result>[], early?: Early): Promise<Outcome<Result>[]> {
    try {
      return await db.transaction((trx) => writeTogether(trx, batch, early));
    } catch (error) {
      if (!(error instanceof ItemFailed)) throw error;
      // Nothing of the first attempt was committed: write the batch again, each item isolated.
      return db.transaction((trx) => writeIsolated(trx, batch));
    }
  }

  /** The batch answered without a transaction, or what was read for its first attempt (undefined: nothing). */
  async function answerEarly(batch: Waiting<Item, Result>[]): Promise<{ results: Result[] } | { read: Early } | undefined> {
    if (!options.answerEarly) return undefined;
    try {
      return await options.answerEarly(db, batch.map(({ item }) => item));
    } catch {
      return undefined;
    }
  }

  async function writeBatch(batch: Waiting<Item, Result>[]): Promise<void> {
    const early = await answerEarly(batch);
    if (early && 'results' in early) {
      batch.forEach((waiting, index) => waiting.resolve(early.results[index]!));
      return;
    }
    let outcomes: Outcome<Result>[];
    try {
      for (let attempt = 1; ; attempt += 1) {
        try {
          // Only the first attempt uses the early read: a retry starts afresh.
          outcomes = await writeOnce(batch, attempt === 1 ? early?.read : undefined);
          break;
        } catch (error) {
          // Nothing was committed and nobody was answered: writing the batch again is safe.
          if (!isTransient(error) || attempt >= TRANSIENT_ATTEMPTS) throw error;
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
        }
      }
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
      return;
    }
    batch.forEach((waiting, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) waiting.resolve(outcome.value);
      else waiting.reject(outcome.error);
    });
  }

  function flush(): void {
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = inKeyOrder(queue.splice(0, maxBatch), options.keyOf);
      inFlight += 1;
      void writeBatch(batch).finally(() => {
        inFlight -= 1;
        lastBatch = { size: batch.length, endedAt: performance.now() };
        schedule();
      });
    }
  }

  function schedule(): void {
    if (inFlight >= maxInFlight || queue.length === 0) return;
    if (queue.length >= maxBatch) return flush();
    if (scheduled) return;
    scheduled = true;
    const run = () => {
      scheduled = false;
      flush();
    };
    // The wait counts from the first waiting item's arrival: an item queued behind a full pipeline has waited already.
    const now = performance.now();
    const companyLikely = inFlight > 0 || (lastBatch.size > 1 && now - lastBatch.endedAt < RECENT_MS);
    const wait = Math.max(maxWaitMs, companyLikely ? busyWaitMs - (now - queue[0]!.queuedAt) : 0);
    if (wait >= 1) setTimeout(run, wait);
    else setImmediate(run);
  }

  return {
    submit(item) {
      if (queue.length >= maxQueue) return Promise.reject(new BatchQueueFull(maxQueue));
      return new Promise<Result>((resolve, reject) => {
        queue.push({ item, queuedAt: performance.now(), resolve, reject });
        schedule();
      });
    },
  };
}

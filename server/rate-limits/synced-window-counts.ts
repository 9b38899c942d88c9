import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { addToSharedCounts, deleteExpiredCounts } from './rate-limits-table';
import { type Decision, type Window, WindowCounts, countOf, decide } from './window-counts';

/** How often one process deletes long-ended counters (the same cadence rate-limiter-flexible had). */
const PURGE_EVERY_MS = 5 * 60_000;
/** While PostgreSQL fails, a request schedules the next try this late at the soonest (it is limited in memory meanwhile). */
const RETRY_FAILED_SYNC_MS = 1000;

export interface SyncSettings {
  /** The shared store; null on the embedded database, which one process owns. */
  db: Knex | null;
  /**
   * How long touched counts wait before they are synced, in ms. 0: each request waits for the
   * sync that carries it and is decided on the total it returns (exact across replicas, one
   * statement per batch of concurrent requests, but a round trip of latency on each).
   */
  intervalMs: number;
  logger: Pick<Logger, 'warn' | 'info'>;
}

/** One sync's outcome per window: the total right after it, and how many of its requests were fresh. */
type Synced = Map<Window, { totalAfter: number; fresh: number }>;

/**
 * Rate-limit counts decided in memory and shared through PostgreSQL in the background: a request
 * is allowed when the total last read back plus this process's requests not yet in it stay within
 * the limit. Every `intervalMs` the touched keys' new requests go to table rate_limits in one
 * statement, which returns the totals of every replica. If PostgreSQL fails, the requests stay
 * counted here (so each process keeps limiting on its own) and go with the next sync.
 */
export class SyncedWindowCounts {
  private readonly counts = new WindowCounts();
  private timer: NodeJS.Timeout | undefined;
  /** The last sync queued; syncs run one at a time, each after the one before. */
  private syncing: Promise<unknown> = Promise.resolve();
  /** The sync that will carry the requests arriving now (interval 0 only). */
  private nextSync: Promise<Synced> | undefined;
  private lastPurge = Date.now();
  private failing = false;
  private closed = false;

  constructor(private readonly settings: SyncSettings) {}

  async hit(key: string, limit: number, windowMs: number): Promise<Decision> {
    const { window, ticket } = this.counts.add(key, windowMs, Date.now());
    const { db, intervalMs } = this.settings;
    if (db && !this.closed && intervalMs === 0 && !this.failing) {
      const synced = (await this.syncSoon()).get(window);
      // The batch's requests come after the total before it, in the order they arrived.
      if (synced) return decide(limit, synced.totalAfter - synced.fresh + ticket, window.endsAt, Date.now());
    } else if (db && !this.closed) {
      this.schedule(this.failing ? Math.max(RETRY_FAILED_SYNC_MS, intervalMs) : intervalMs);
    }
    return decide(limit, countOf(window), window.endsAt, Date.now());
  }

  /** Sends every count not yet shared, and reads back the totals; shutdown calls it after the last request. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.settings.db) await this.queueSync();
  }

  /** Shares the last counts and stops syncing: later requests (there should be none) are decided here alone. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  /** Syncs run only while requests come: a failed one is tried again when the next request schedules it. */
  private schedule(delayMs: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.queueSync().then(() => {
        if (this.counts.hasUnsent() && !this.failing && !this.closed) this.schedule(this.settings.intervalMs);
      });
    }, delayMs);
    this.timer.unref(); // never what keeps a process alive: shutdown flushes
  }

  private queueSync(): Promise<Synced> {
    const run = this.syncing.then(() => this.syncNow());
    this.syncing = run;
    return run;
  }

  /** Requests arriving in the same turn of the event loop, or while a sync is under way, share the next statement. */
  private syncSoon(): Promise<Synced> {
    if (this.nextSync) return this.nextSync;
    const next = this.syncing
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => {
        this.nextSync = undefined; // in the same turn as syncNow's take: a later request waits for the sync after
        return this.syncNow();
      });
    this.nextSync = next;
    this.syncing = next;
    return next;
  }

  /** Never rejects: a failed sync leaves its requests counted here for the next one. */
  private async syncNow(): Promise<Synced> {
    const db = this.settings.db!;
    const sent = this.counts.take();
    const synced: Synced = new Map();
    if (sent.length === 0) return synced;
    const now = Date.now();
    let totals: Map<string, number> | undefined;
    try {
      const rows = await addToSharedCounts(db, sent, now);
      this.counts.settle(sent, rows);
      totals = new Map(rows.map((row) => [row.key, row.points]));
      if (this.failing) this.settings.logger.info('rate-limit counters reachable again; limits are shared across instances');
      this.failing = false;
    } catch (error) {
      this.counts.restore(sent);
      if (!this.failing) this.settings.logger.warn({ error: (error as Error).message }, 'rate-limit counters unreachable; limiting in memory per instance');
      this.failing = true;
    }
    for (const item of sent) {
      synced.set(item.window, { totalAfter: totals?.get(item.key) ?? item.window.shared + item.delta, fresh: item.fresh });
    }
    if (totals && now - this.lastPurge >= PURGE_EVERY_MS) {
      this.lastPurge = now;
      deleteExpiredCounts(db, now).catch(() => undefined); // only tidiness: the next purge tries again
    }
    return synced;
  }
}

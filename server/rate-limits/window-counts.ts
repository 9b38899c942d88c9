/**
 * One key's fixed window as this process knows it. `shared` is the total PostgreSQL returned at
 * the last sync (every replica's requests, ours included); the other three are this process's
 * requests the shared total does not hold yet.
 */
export interface Window {
  /** Epoch milliseconds at which the window ends (the shared row's, once synced). */
  endsAt: number;
  shared: number;
  /** Requests of a sync that failed, sent again with the next one. */
  carried: number;
  /** Requests in the sync under way. */
  sending: number;
  /** Requests since the last sync started, numbered 1, 2, … as they come (their ticket). */
  unsent: number;
}

/** What one sync sends for one key: `delta` requests (`carried` first, then `fresh`). */
export interface Sent {
  key: string;
  delta: number;
  fresh: number;
  /** Where a window the shared row does not have yet ends: ours. */
  endsAt: number;
  window: Window;
}

/** A key's total after a sync, as the shared store returned it. */
export interface SharedTotal {
  key: string;
  points: number;
  expire: number;
}

export interface Decision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window ends, at least 1 (RateLimit-Reset, Retry-After). */
  resetSeconds: number;
}

/** The count a request is decided on: everything the shared total holds plus what it does not yet. */
export function countOf(window: Window): number {
  return window.shared + window.carried + window.sending + window.unsent;
}

/** The `count`-th request of a window ending at `endsAt` against `limit`. */
export function decide(limit: number, count: number, endsAt: number, now: number): Decision {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil((endsAt - now) / 1000)),
  };
}

/**
 * Per-key request counts of the current fixed window (it starts at a key's first request), counted
 * in memory and handed to a sync in batches. Pure bookkeeping: the caller says what time it is.
 */
export class WindowCounts {
  private readonly windows = new Map<string, Window>();
  /** Keys with requests to send, so a sync costs what was touched, not every key of the hour. */
  private readonly touched = new Set<string>();
  /** Past this many windows, add() first forgets the ended ones (a process that never syncs, too). */
  private sweepAbove = 1024;

  /** Counts one request; `ticket` is its place among the requests the next sync will send fresh. */
  add(key: string, windowMs: number, now: number): { window: Window; ticket: number } {
    if (this.windows.size > this.sweepAbove) {
      this.forgetEnded(now);
      this.sweepAbove = Math.max(1024, this.windows.size * 2);
    }
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      // Rollover: what the old window still held unsent no longer counts against anything.
      window = { endsAt: now + windowMs, shared: 0, carried: 0, sending: 0, unsent: 0 };
      this.windows.set(key, window);
    }
    window.unsent += 1;
    this.touched.add(key);
    return { window, ticket: window.unsent };
  }

  /** True when a sync has something to send. */
  hasUnsent(): boolean {
    return this.touched.size > 0;
  }

  /** Starts a sync: the carried and unsent requests of every touched window become `sending`. */
  take(): Sent[] {
    const sent: Sent[] = [];
    for (const key of this.touched) {
      const window = this.windows.get(key);
      if (!window) continue;
      sent.push({ key, delta: window.carried + window.unsent, fresh: window.unsent, endsAt: window.endsAt, window });
      window.sending += window.carried + window.unsent;
      window.carried = 0;
      window.unsent = 0;
    }
    this.touched.clear();
    return sent;
  }

  /** A sync succeeded: each window takes the shared total and the shared window's end. */
  settle(sent: readonly Sent[], totals: readonly SharedTotal[]): void {
    const byKey = new Map(totals.map((total) => [total.key, total]));
    for (const item of sent) {
      const total = byKey.get(item.key);
      if (!total) {
        this.restore([item]); // not confirmed: send again
        continue;
      }
      item.window.sending -= item.delta;
      item.window.shared = total.points;
      item.window.endsAt = total.expire;
    }
  }

  /** A sync failed: its requests stay counted here and go with the next one. */
  restore(sent: readonly Sent[]): void {
    for (const { key, delta, window } of sent) {
      window.sending -= delta;
      window.carried += delta;
      // A window replaced by a rollover meanwhile has nothing left to send.
      if (this.windows.get(key) === window) this.touched.add(key);
    }
  }

  /** Drops the windows that have ended; a sync under way for one still settles on its own copy. */
  private forgetEnded(now: number): void {
    for (const [key, window] of this.windows) {
      if (window.endsAt > now) continue;
      this.windows.delete(key);
      this.touched.delete(key);
    }
  }
}

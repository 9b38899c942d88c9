import type { Knex } from 'knex';

export interface WaitOptions {
  /** How long to keep trying before giving up. */
  timeoutMs: number;
  /** Told about every failed attempt, with the pause before the next one (null: giving up). */
  onFailedAttempt?: (attempt: number, error: Error, nextDelayMs: number | null) => void;
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/** The database did not answer within the start-up timeout. */
export class DatabaseUnreachableError extends Error {
  constructor(
    readonly attempts: number,
    readonly timeoutMs: number,
    readonly lastError: Error,
  ) {
    super(`the database did not answer in ${timeoutMs / 1000} s (${attempts} attempts); last error: ${lastError.message}`);
    this.name = 'DatabaseUnreachableError';
  }
}

function attemptWithin<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Resolves once `select 1` succeeds, retrying with exponential backoff until `timeoutMs` has passed
 * (a database restarting alongside us is normal at deployment). Written here rather than with a
 * retry library: those bound the number of attempts, and the bound that matters is time.
 */
export async function waitForDatabase(db: Knex, options: WaitOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let delay = options.firstDelayMs ?? 250;
  for (let attempt = 1; ; attempt += 1) {
    try {
      // A connection to a host that drops packets would otherwise hang past the deadline.
      await attemptWithin(db.raw('select 1'), Math.max(deadline - Date.now(), 1_000));
      return;
    } catch (error) {
      const remaining = deadline - Date.now();
      const next = remaining > 0 ? Math.min(delay, remaining) : null;
      options.onFailedAttempt?.(attempt, error as Error, next);
      if (next === null) throw new DatabaseUnreachableError(attempt, options.timeoutMs, error as Error);
      await new Promise((resolve) => setTimeout(resolve, next));
      delay = Math.min(delay * 2, options.maxDelayMs ?? 5_000);
    }
  }
}

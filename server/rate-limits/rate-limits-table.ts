import type { Knex } from 'knex';
import type { Sent, SharedTotal } from './window-counts';

/** Counters that ended this long ago are deleted (as rate-limiter-flexible did with the same table). */
export const EXPIRED_KEPT_MS = 3_600_000;

/**
 * Adds every key's `delta` to its shared counter in one statement and returns the totals. A row
 * whose window has ended (expire <= now) starts again at the delta, ending where ours does. The
 * layout (key, points, expire in epoch ms) is rate-limiter-flexible's, so a process still running
 * the library during a rolling deploy counts on the same rows. Rows are upserted in key order, so two
 * replicas syncing overlapping keys wait for each other instead of deadlocking.
 */
export async function addToSharedCounts(db: Knex, sent: readonly Sent[], now: number): Promise<SharedTotal[]> {
  const result = await db.raw<{ rows: Array<{ key: string; points: number; expire: string }> }>(
    `INSERT INTO rate_limits AS counter (key, points, expire)
     SELECT key, delta, ends_at FROM unnest(?::text[], ?::int[], ?::bigint[]) AS sent (key, delta, ends_at) ORDER BY key
     ON CONFLICT (key) DO UPDATE SET
       points = CASE WHEN counter.expire <= ? THEN excluded.points ELSE counter.points + excluded.points END,
       expire = CASE WHEN counter.expire <= ? THEN excluded.expire ELSE counter.expire END
     RETURNING key, points, expire`,
    [sent.map((s) => s.key), sent.map((s) => s.delta), sent.map((s) => s.endsAt), now, now],
  );
  return result.rows.map((row) => ({ key: row.key, points: row.points, expire: Number(row.expire) }));
}

/** Deletes the counters whose window ended over an hour ago (index rate_limits_by_expiry). */
export async function deleteExpiredCounts(db: Knex, now: number): Promise<void> {
  await db.raw('DELETE FROM rate_limits WHERE expire < ?', [now - EXPIRED_KEPT_MS]);
}

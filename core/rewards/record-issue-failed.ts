import type { Executor } from '../db/transaction';

/** Seconds a refused issue waits before its next try: 30 s doubling per attempt, at most an hour. */
export function issueRetryAfterSeconds(attempts: number): number {
  return Math.min(3600, 30 * 2 ** Math.max(0, attempts - 1));
}

/**
 * The platform refused (or could not be asked to make) an issue's code: recorded `failed` with its
 * reason, its lease released, tried again after the backoff. Only an issue still to be made moves:
 * one issued stays so (a late failure report of a code the store has changes nothing), and one
 * marked to be taken back meanwhile has its lease released, so the take-back comes at once.
 * Returns the issue's state after, or null when it did not move.
 */
export async function recordIssueFailed(
  db: Executor,
  issue: { brand_id: string; issue_id: string | number; attempts: number },
  reason: string,
): Promise<{ status: string; attempts: number; next_attempt_at: Date } | null> {
  const attempts = issue.attempts + 1;
  const key = { brand_id: issue.brand_id, issue_id: issue.issue_id };
  const [row] = await db('reward_issues')
    .where(key)
    .whereIn('status', ['pending', 'failed'])
    .update({
      status: 'failed',
      attempts,
      last_error: reason.slice(0, 2000),
      next_attempt_at: db.raw('now() + make_interval(secs => ?)', [issueRetryAfterSeconds(attempts)]),
      lease_until: null,
    })
    .returning(['status', 'attempts', 'next_attempt_at']);
  if (!row) await db('reward_issues').where(key).where({ status: 'revoking' }).update({ lease_until: null });
  return row ?? null;
}

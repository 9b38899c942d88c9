import type { Executor } from '../db/transaction';

/** Seconds a refused issue waits before its next try: 30 s doubling per attempt, at most an hour. */
export function issueRetryAfterSeconds(attempts: number): number {
  return Math.min(3600, 30 * 2 ** Math.max(0, attempts - 1));
}

/**
 * The platform refused (or could not be asked to make) an issue's code: recorded `failed` with its
 * reason, its lease released, tried again after the backoff. An issue already issued stays so (a
 * late failure report of a code the store has changes nothing). Returns the issue's state after.
 */
export async function recordIssueFailed(
  db: Executor,
  issue: { brand_id: string; issue_id: string | number; attempts: number },
  reason: string,
): Promise<{ status: string; attempts: number; next_attempt_at: Date } | null> {
  const attempts = issue.attempts + 1;
  const [row] = await db('reward_issues')
    .where({ brand_id: issue.brand_id, issue_id: issue.issue_id })
    .whereNot({ status: 'issued' })
    .update({
      status: 'failed',
      attempts,
      last_error: reason.slice(0, 2000),
      next_attempt_at: db.raw('now() + make_interval(secs => ?)', [issueRetryAfterSeconds(attempts)]),
      lease_until: null,
    })
    .returning(['status', 'attempts', 'next_attempt_at']);
  return row ?? null;
}

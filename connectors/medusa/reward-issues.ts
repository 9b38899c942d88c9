import type { Knex } from 'knex';
import { Conflict, NotFound } from '../../core/errors';
import { amountFromDecimal } from '../../core/money';
import { type LeasedIssue, recordIssued } from '../../core/rewards/record-issued';
import { recordIssueFailed } from '../../core/rewards/record-issue-failed';
import { linkMedusaStore } from './medusa-link';

/**
 * A Medusa brand's reward issues (core/rewards/issue-rewards.ts), pulled by its plugin, which makes
 * each a single-use promotion in the store and reports it back (docs/merchants/medusa.md "Reward
 * codes"). Medusa cannot be called from here (the store is the merchant's, behind its own admin
 * auth), so the plugin asks: a pull leases the due issues of its brand (SKIP LOCKED, bounded), and a
 * lease that outlives a crashed plugin expires, so the next pull hands the issue out again — its
 * code is deterministic and the plugin looks it up before creating, so it is made once.
 */

/** An issue's lease: far longer than the plugin's few workflow calls for it. */
export const LEASE_SECONDS = 120;

/** An issue as the plugin gets it: the code to make, for how much, and whose customer account it is for. */
export interface MedusaRewardIssue {
  issue_id: number;
  code: string;
  amount: number;
  /** ISO 4217, upper case: the brand's. */
  currency: string;
  /** The advocate's email: the plugin restricts the promotion to the store's customers with it. */
  advocate_email: string;
  attempts: number;
}

/** Links the brand's store on its first pull, then leases up to `limit` of its due issues, oldest first. */
export async function pullRewardIssues(db: Knex, brandId: string, limit: number): Promise<MedusaRewardIssue[]> {
  return db.transaction(async (trx) => {
    await linkMedusaStore(trx, brandId);
    const { rows } = await trx.raw(
      `WITH due AS (
         SELECT issue_id FROM reward_issues
          WHERE brand_id = ? AND status IN ('pending', 'failed') AND method = 'code' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
          ORDER BY next_attempt_at, issue_id LIMIT ? FOR UPDATE SKIP LOCKED)
       UPDATE reward_issues r SET lease_until = now() + make_interval(secs => ?)
         FROM due, advocates a
        WHERE r.brand_id = ? AND r.issue_id = due.issue_id AND a.brand_id = r.brand_id AND a.advocate_id = r.advocate_id
       RETURNING r.issue_id, r.code, r.amount, r.currency, r.attempts, a.email`,
      [brandId, limit, LEASE_SECONDS, brandId],
    );
    return (rows as Array<{ issue_id: string; code: string; amount: string; currency: string; attempts: number; email: string }>)
      .map((row) => ({ issue_id: Number(row.issue_id), code: row.code, amount: amountFromDecimal(row.amount), currency: row.currency, advocate_email: row.email, attempts: row.attempts }))
      .sort((a, b) => a.issue_id - b.issue_id);
  });
}

/** What a report answers: the issue's state once it was recorded. */
export interface IssueReport {
  issue_id: number;
  status: 'issued' | 'failed';
  /** The promotion's id in Medusa, once issued. */
  platform_id: string | null;
  attempts: number;
  /** An issued report of an issue that was issued already: nothing changed. */
  duplicate: boolean;
}

async function lockedIssue(trx: Knex.Transaction, brandId: string, issueId: number): Promise<LeasedIssue & { status: string; platform_id: string | null }> {
  const issue = await trx('reward_issues')
    .where({ brand_id: brandId, issue_id: issueId })
    .forUpdate()
    .first('brand_id', 'issue_id', 'advocate_id', 'amount', 'currency', 'code', 'attempts', 'status', 'platform_id');
  if (!issue) throw new NotFound(`reward issue ${issueId} not found`);
  return issue;
}

/**
 * The store has the issue's promotion: recorded issued (core/rewards/record-issued.ts: the advocate's
 * email and reward.issued, once). Reported again (a plugin that crashed before it heard our answer),
 * it changes nothing and answers the first promotion.
 */
export async function reportIssued(db: Knex, brandId: string, issueId: number, promotionId: string): Promise<IssueReport> {
  return db.transaction(async (trx) => {
    const issue = await lockedIssue(trx, brandId, issueId);
    if (issue.status === 'issued') return { issue_id: issueId, status: 'issued', platform_id: issue.platform_id, attempts: issue.attempts, duplicate: true };
    await recordIssued(trx, issue, { name: 'medusa', id: promotionId });
    return { issue_id: issueId, status: 'issued', platform_id: promotionId, attempts: issue.attempts + 1, duplicate: false };
  });
}

/** Medusa refused the promotion: recorded with its reason and tried again after the backoff. 409 once it is issued. */
export async function reportFailed(db: Knex, brandId: string, issueId: number, reason: string): Promise<IssueReport> {
  return db.transaction(async (trx) => {
    const issue = await lockedIssue(trx, brandId, issueId);
    if (issue.status === 'issued') throw new Conflict(`reward issue ${issueId} is issued already (promotion ${issue.platform_id}): a failure is not recorded`);
    const failed = await recordIssueFailed(trx, issue, reason);
    return { issue_id: issueId, status: 'failed', platform_id: null, attempts: failed!.attempts, duplicate: false };
  });
}

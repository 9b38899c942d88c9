import type { Knex } from 'knex';
import { Conflict, NotFound } from '../../core/errors';
import { amountFromDecimal } from '../../core/money';
import type { IssueMethod } from '../../core/rewards/advocate-issues';
import { type LeasedIssue, recordIssued } from '../../core/rewards/record-issued';
import { issueRetryAfterSeconds, recordIssueFailed } from '../../core/rewards/record-issue-failed';
import { expireIssues } from '../../core/rewards/revoke-issues';
import { linkMedusaStore } from './medusa-link';
import { settleUnmadeRevocations } from './reward-issue-take-back';

/**
 * A Medusa brand's reward issues (core/rewards/issue-rewards.ts), pulled by its plugin, which makes
 * each a single-use promotion in the store and reports it back (docs/merchants/medusa.md "Reward
 * codes"). Medusa cannot be called from here (the store is the merchant's, behind its own admin
 * auth), so the plugin asks: a pull leases the due issues of its brand (SKIP LOCKED, bounded), and a
 * lease that outlives a crashed plugin expires, so the next pull hands the issue out again — its
 * code is deterministic and the plugin looks it up before creating, so it is made once. A plugin that
 * says it can take codes back also gets the brand's `revoking` issues (reward-issue-take-back.ts), and
 * one that says it can credit store credit gets a store_credit brand's issues (credited, or a code).
 */

/** An issue's lease: far longer than the plugin's few workflow calls for it. */
export const LEASE_SECONDS = 120;

/** What the plugin is to do with an issue: make its promotion, or take it back (delete it, unless Medusa counted a use). */
export const ISSUE_ACTIONS = ['make', 'take_back'] as const;
export type IssueAction = (typeof ISSUE_ACTIONS)[number];

/** What a plugin says it can do (`actions` of a pull): make codes, take them back, credit store credit. An older plugin sends none: make. */
export const PLUGIN_CAPABILITIES = [...ISSUE_ACTIONS, 'store_credit'] as const;
export type PluginCapability = (typeof PLUGIN_CAPABILITIES)[number];

/** An issue as the plugin gets it: the code to make (or take back), for how much, and whose customer account it is for. */
export interface MedusaRewardIssue {
  issue_id: number;
  action: IssueAction;
  /** `store_credit`: credit the advocate's customer account, or make the code when that cannot be (then reported as a code). */
  method: IssueMethod;
  /** take_back: the promotion's id in Medusa when one was reported made; null: look it up by code (a crash may have left one). */
  platform_id: string | null;
  code: string;
  amount: number;
  /** ISO 4217, upper case: the brand's. */
  currency: string;
  /** The advocate's email: the plugin restricts the promotion to (or credits) the store's customers with it. */
  advocate_email: string;
  attempts: number;
}

/**
 * Links the brand's store on its first pull, then leases up to `limit` of its due issues, oldest
 * first: codes to make, and with `take_back` among `actions` (a plugin that can delete promotions;
 * an older one would make them) codes to take back. Before that, the brand's expired codes are
 * marked to be taken back and those no plugin ever held are settled here (no promotion to delete).
 * Store credit issues go only to a plugin with `store_credit` among `actions`: an older one would
 * make them codes without saying so.
 */
export async function pullRewardIssues(db: Knex, brandId: string, limit: number, actions: readonly PluginCapability[] = ['make']): Promise<MedusaRewardIssue[]> {
  const methods = ['code', ...(actions.includes('store_credit') && actions.includes('make') ? ['store_credit'] : [])];
  const statuses = [...(actions.includes('make') ? ['pending', 'failed'] : []), ...(actions.includes('take_back') ? ['revoking'] : [])];
  await expireIssues(db, { brandId });
  await settleUnmadeRevocations(db, brandId, limit);
  return db.transaction(async (trx) => {
    await linkMedusaStore(trx, brandId);
    const { rows } = await trx.raw(
      `WITH due AS (
         SELECT issue_id FROM reward_issues
          WHERE brand_id = ? AND status = ANY(?) AND method = ANY(?) AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
          ORDER BY next_attempt_at, issue_id LIMIT ? FOR UPDATE SKIP LOCKED)
       UPDATE reward_issues r SET lease_until = now() + make_interval(secs => ?)
         FROM due, advocates a
        WHERE r.brand_id = ? AND r.issue_id = due.issue_id AND a.brand_id = r.brand_id AND a.advocate_id = r.advocate_id
       RETURNING r.issue_id, r.status, r.method, r.platform_id, r.code, r.amount, r.currency, r.attempts, a.email`,
      [brandId, statuses, methods, limit, LEASE_SECONDS, brandId],
    );
    type Row = { issue_id: string; status: string; method: IssueMethod; platform_id: string | null; code: string; amount: string; currency: string; attempts: number; email: string };
    return (rows as Row[])
      .map((row): MedusaRewardIssue => {
        const action: IssueAction = row.status === 'revoking' ? 'take_back' : 'make';
        return { issue_id: Number(row.issue_id), action, method: row.method, platform_id: action === 'take_back' ? row.platform_id : null, code: row.code, amount: amountFromDecimal(row.amount), currency: row.currency, advocate_email: row.email, attempts: row.attempts };
      })
      .sort((a, b) => a.issue_id - b.issue_id);
  });
}

/** What a report answers: the issue's state once it was recorded. */
export interface IssueReport {
  issue_id: number;
  /** `issued` or `failed`; or, for an issue marked to be taken back meanwhile, its real state (`revoking`: the next pull hands it out to be taken back). */
  status: string;
  /** The promotion's id in Medusa, once reported made. */
  platform_id: string | null;
  attempts: number;
  /** An issued report of an issue whose promotion was reported already: nothing changed. */
  duplicate: boolean;
}

type LockedIssue = LeasedIssue & { status: string; method: IssueMethod; platform_id: string | null };

async function lockedIssue(trx: Knex.Transaction, brandId: string, issueId: number): Promise<LockedIssue> {
  const issue = await trx('reward_issues')
    .where({ brand_id: brandId, issue_id: issueId })
    .forUpdate()
    .first('brand_id', 'issue_id', 'advocate_id', 'amount', 'currency', 'code', 'attempts', 'status', 'method', 'platform_id');
  if (!issue) throw new NotFound(`reward issue ${issueId} not found`);
  return issue;
}

const reportOf = (issue: LockedIssue, duplicate: boolean): IssueReport => ({ issue_id: Number(issue.issue_id), status: issue.status, platform_id: issue.platform_id, attempts: issue.attempts, duplicate });

/** What the plugin made of an issue: its code's promotion (for store credit: why a code instead), or a store credit transaction. */
export type MadeInMedusa = { method: 'code'; promotionId: string; noCustomerAccount?: boolean } | { method: 'store_credit'; transactionId: string };

/**
 * The store has the issue's promotion (or its store credit): recorded issued (core/rewards/record-issued.ts: the advocate's
 * email and reward.issued, once). Reported again (a plugin that crashed before it heard our answer),
 * it changes nothing and answers the first promotion. Marked to be taken back while it was being made,
 * it is not issued: nobody hears of it, the promotion's id is kept, and the answer says `revoking`.
 * A store credit issue reported as a code (no customer account, or no store credit module) becomes
 * one, as the Shopify worker's does; a code reported credited is refused (409).
 */
export async function reportIssued(db: Knex, brandId: string, issueId: number, made: MadeInMedusa): Promise<IssueReport> {
  return db.transaction(async (trx) => {
    const issue = await lockedIssue(trx, brandId, issueId);
    if (issue.status === 'issued') return reportOf(issue, true);
    if (made.method === 'store_credit' && issue.method !== 'store_credit') throw new Conflict(`reward issue ${issueId} is a code: it is not credited as store credit`);
    const noCustomerAccount = made.method === 'code' && made.noCustomerAccount === true;
    if (made.method === 'code' && issue.method === 'store_credit') {
      await trx('reward_issues').where({ brand_id: brandId, issue_id: issueId }).update({ method: 'code', no_customer_account: noCustomerAccount });
    }
    const id = made.method === 'code' ? made.promotionId : made.transactionId;
    await recordIssued(trx, issue, { name: 'medusa', id, method: made.method, noCustomerAccount });
    return reportOf(await lockedIssue(trx, brandId, issueId), issue.platform_id !== null);
  });
}

/**
 * Medusa refused the promotion (or, for a code being taken back, its deletion): recorded with its
 * reason and tried again after the backoff — a code being taken back stays so. 409 for a code issued,
 * revoked or used already.
 */
export async function reportFailed(db: Knex, brandId: string, issueId: number, reason: string): Promise<IssueReport> {
  return db.transaction(async (trx) => {
    const issue = await lockedIssue(trx, brandId, issueId);
    if (!['pending', 'failed', 'revoking'].includes(issue.status)) {
      const made = issue.platform_id ? ` (promotion ${issue.platform_id})` : '';
      throw new Conflict(`reward issue ${issueId} is ${issue.status} already${made}: a failure is not recorded`);
    }
    if (issue.status === 'revoking') return reportOf(await recordTakeBackFailed(trx, issue, reason), false);
    const failed = await recordIssueFailed(trx, issue, reason);
    return { issue_id: issueId, status: 'failed', platform_id: null, attempts: failed!.attempts, duplicate: false };
  });
}

/**
 * A code being taken back that the plugin reports failed (Medusa refused the deletion, or the
 * promotion when it was still being made): its reason kept, handed out again after the backoff. Its
 * lease ends now rather than cleared: a code a plugin held may have a promotion, which only the
 * plugin's lookup settles (reward-issue-take-back.ts settles only codes never held).
 */
async function recordTakeBackFailed(trx: Knex.Transaction, issue: LockedIssue, reason: string): Promise<LockedIssue> {
  const attempts = issue.attempts + 1;
  await trx('reward_issues')
    .where({ brand_id: issue.brand_id, issue_id: issue.issue_id })
    .update({ attempts, last_error: reason.slice(0, 2000), next_attempt_at: trx.raw('now() + make_interval(secs => ?)', [issueRetryAfterSeconds(attempts)]), lease_until: trx.fn.now() });
  return { ...issue, attempts };
}

import type { Knex } from 'knex';
import { Conflict, NotFound } from '../../core/errors';
import { recordRevoked, recordUsed } from '../../core/rewards/record-revoked';

/**
 * Taking a Medusa brand's reward codes back (docs/merchants/medusa.md "Reward codes"): core marked
 * them `revoking` (a refund left the advocate owing, or the code expired, core/rewards/revoke-issues.ts);
 * the plugin deletes each promotion and reports it (`revoked`), or finds Medusa counted a use first
 * (`used`). A code never handed to the plugin has no promotion to delete: it is settled here.
 */

/** What a take-back report answers: the issue's state once it was recorded. */
export interface TakeBackReport {
  issue_id: number;
  status: string;
  /** The issue made for what is left (revoked with money left to issue), else null. */
  replaced_by: number | null;
  /** A repeated report (or one after the use was recorded): nothing changed. */
  duplicate: boolean;
}

interface IssueState {
  brand_id: string;
  issue_id: string;
  advocate_id: string;
  status: string;
  replaced_by: string | null;
}

/**
 * Settles, before a pull leases, up to `limit` of the brand's codes marked `revoking` that never
 * reached the plugin — no promotion reported, no lease ever taken, or the last one ended by a failure
 * report — so none was made: their money returns and what is left is issued again (core recordRevoked,
 * each its own transaction, taking the advocate's lock first as issuing does). A code a plugin once
 * leased without reporting may have been made (a crash before its report): the plugin looks it up.
 */
export async function settleUnmadeRevocations(db: Knex, brandId: string, limit: number): Promise<number> {
  const unmade: Array<{ brand_id: string; issue_id: string; advocate_id: string }> = await db('reward_issues')
    .where({ brand_id: brandId, status: 'revoking', method: 'code' })
    .whereNull('platform_id')
    .whereNull('lease_until')
    .orderBy('issue_id')
    .limit(limit)
    .select('brand_id', 'issue_id', 'advocate_id');
  for (const issue of unmade) await recordRevoked(db, issue);
  return unmade.length;
}

async function issueState(db: Knex, brandId: string, issueId: number): Promise<IssueState> {
  const issue = await db('reward_issues').where({ brand_id: brandId, issue_id: issueId }).first('brand_id', 'issue_id', 'advocate_id', 'status', 'replaced_by');
  if (!issue) throw new NotFound(`reward issue ${issueId} not found`);
  return issue;
}

const answer = (issue: IssueState, duplicate: boolean): TakeBackReport => ({
  issue_id: Number(issue.issue_id),
  status: issue.status,
  replaced_by: issue.replaced_by === null ? null : Number(issue.replaced_by),
  duplicate,
});

/** 409: a report of a code nobody asked to take back. */
function notTakenBack(issue: IssueState): Conflict {
  return new Conflict(`reward issue ${issue.issue_id} is ${issue.status}, not being taken back: nothing recorded`);
}

/**
 * The plugin deleted the issue's promotion (or found none): core records it revoked, returns its money
 * and issues what is left, once. Reported again (a plugin that crashed before our answer) it changes
 * nothing; spent meanwhile (its order's claim recorded it used) it stays spent.
 */
export async function reportRevoked(db: Knex, brandId: string, issueId: number): Promise<TakeBackReport> {
  const before = await issueState(db, brandId, issueId);
  if (before.status === 'revoked' || before.status === 'used') return answer(before, true);
  if (before.status !== 'revoking') throw notTakenBack(before);
  // Not locked here: recordRevoked takes the advocate's lock, then the issue's, and checks its state under them.
  const replacement = await recordRevoked(db, before);
  return answer(await issueState(db, brandId, issueId), replacement === undefined);
}

/** Medusa counted a use of the promotion before it could be deleted: the code stays spent (`used`), its money on it. */
export async function reportUsed(db: Knex, brandId: string, issueId: number): Promise<TakeBackReport> {
  const before = await issueState(db, brandId, issueId);
  if (before.status === 'used' || before.status === 'revoked') return answer(before, true);
  if (before.status !== 'revoking') throw notTakenBack(before);
  await recordUsed(db, before);
  const after = await issueState(db, brandId, issueId);
  return answer(after, after.status !== 'used');
}

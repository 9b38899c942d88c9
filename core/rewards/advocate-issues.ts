import type { Executor } from '../db/transaction';
import { amountFromDecimal } from '../money';

/**
 * What an advocate was handed to spend (docs/merchants/reward-lifecycle.md "Fulfilment"), as their
 * own pages show it: each reward issue, newest first, in words an advocate reads — on its way to
 * the store, ready to use, or used.
 */

/** An issue as the advocate sees it: withdrawn (a refund) or expired, its money came (or comes) back to them. */
export type IssueState = 'on_its_way' | 'ready' | 'used' | 'withdrawn' | 'expired';

export interface IssuedReward {
  issue_id: number;
  /** What the advocate enters at checkout. */
  code: string;
  amount: number;
  currency: string;
  state: IssueState;
  created_at: string;
  /** When the store had it; null while on its way. */
  issued_at: string | null;
}

interface IssueRow {
  issue_id: string;
  code: string;
  amount: string;
  currency: string;
  status: string;
  spent_claim_id: string | null;
  revoke_reason: string | null;
  created_at: Date;
  issued_at: Date | null;
}

/** The one rule from an issue's row to what the advocate is told. */
export function issueState(row: Pick<IssueRow, 'status' | 'spent_claim_id' | 'revoke_reason'>): IssueState {
  if (row.spent_claim_id !== null || row.status === 'used') return 'used';
  if (row.status === 'revoking' || row.status === 'revoked') return row.revoke_reason === 'expired' ? 'expired' : 'withdrawn';
  return row.status === 'issued' ? 'ready' : 'on_its_way';
}

/** The advocate's most recent issues (at most `limit`), newest first. */
export async function advocateIssues(db: Executor, brandId: string, advocateId: number, limit = 50): Promise<IssuedReward[]> {
  const rows: IssueRow[] = await db('reward_issues')
    .where({ brand_id: brandId, advocate_id: advocateId })
    .orderBy('issue_id', 'desc')
    .limit(limit)
    .select('issue_id', 'code', 'amount', 'currency', 'status', 'spent_claim_id', 'revoke_reason', 'created_at', 'issued_at');
  return rows.map((row) => ({
    issue_id: Number(row.issue_id),
    code: row.code,
    amount: amountFromDecimal(row.amount),
    currency: row.currency,
    state: issueState(row),
    created_at: new Date(row.created_at).toISOString(),
    issued_at: row.issued_at ? new Date(row.issued_at).toISOString() : null,
  }));
}

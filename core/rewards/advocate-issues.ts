import type { Executor } from '../db/transaction';
import { amountFromDecimal } from '../money';

/**
 * What an advocate was handed to spend (docs/merchants/reward-lifecycle.md "Fulfilment"), as their
 * own pages show it: each reward issue, newest first, in words an advocate reads — on its way to
 * the store, ready to use, or used. Store credit is spent at the store's checkout like any other
 * credit of the account, so it is never `used` here (docs/merchants/shopify.md "Store credit").
 */

/** An issue as the advocate sees it: withdrawn (a refund) or expired, its money came (or comes) back to them. */
export type IssueState = 'on_its_way' | 'ready' | 'used' | 'withdrawn' | 'expired';

/** How an issue reaches the advocate: a single-use code, or credit on their customer account. */
export type IssueMethod = 'code' | 'store_credit';

export interface IssuedReward {
  issue_id: number;
  method: IssueMethod;
  /** What the advocate enters at checkout; null for store credit (nothing to enter). */
  code: string | null;
  amount: number;
  currency: string;
  state: IssueState;
  created_at: string;
  /** When the store had it; null while on its way. */
  issued_at: string | null;
}

interface IssueRow {
  issue_id: string;
  method: IssueMethod;
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

/** An issue as the merchant sees it: the advocate's view, with the platform's side of it. */
export interface MerchantIssue extends IssuedReward {
  advocate_id: number;
  /** pending (not tried yet), failed (refused: `last_error` says why, tried again at `next_attempt_at`), issued. */
  status: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: string | null;
}

/** A brand's issues, newest first: one advocate's, or those the platform refused (`failedOnly`). At most `limit`. */
export async function merchantIssues(db: Executor, brandId: string, filter: { advocateId?: number; failedOnly?: boolean }, limit = 100): Promise<MerchantIssue[]> {
  const rows: Array<IssueRow & { advocate_id: string; attempts: number; last_error: string | null; next_attempt_at: Date }> = await db('reward_issues')
    .where({ brand_id: brandId })
    .modify((query) => {
      if (filter.advocateId !== undefined) query.andWhere({ advocate_id: filter.advocateId });
      if (filter.failedOnly) query.andWhere({ status: 'failed' });
    })
    .orderBy('issue_id', 'desc')
    .limit(limit)
    .select('issue_id', 'advocate_id', 'method', 'code', 'amount', 'currency', 'status', 'spent_claim_id', 'revoke_reason', 'created_at', 'issued_at', 'attempts', 'last_error', 'next_attempt_at');
  return rows.map((row) => ({
    ...issuedReward(row),
    advocate_id: Number(row.advocate_id),
    status: row.status,
    attempts: row.attempts,
    last_error: row.last_error,
    next_attempt_at: row.status === 'failed' ? new Date(row.next_attempt_at).toISOString() : null,
  }));
}

function issuedReward(row: IssueRow): IssuedReward {
  return {
    issue_id: Number(row.issue_id),
    method: row.method,
    code: row.method === 'code' ? row.code : null,
    amount: amountFromDecimal(row.amount),
    currency: row.currency,
    state: issueState(row),
    created_at: new Date(row.created_at).toISOString(),
    issued_at: row.issued_at ? new Date(row.issued_at).toISOString() : null,
  };
}

/** The advocate's most recent issues (at most `limit`), newest first. */
export async function advocateIssues(db: Executor, brandId: string, advocateId: number, limit = 50): Promise<IssuedReward[]> {
  const rows: IssueRow[] = await db('reward_issues')
    .where({ brand_id: brandId, advocate_id: advocateId })
    .orderBy('issue_id', 'desc')
    .limit(limit)
    .select('issue_id', 'method', 'code', 'amount', 'currency', 'status', 'spent_claim_id', 'revoke_reason', 'created_at', 'issued_at');
  return rows.map(issuedReward);
}

import type { Knex } from 'knex';

/** The brand's reward codes as `referrals shopify codes` shows them: how many wait, were made, refused (and why) or taken back. */
export interface RewardCodeStatus {
  pending: number;
  issued: number;
  failed: number;
  /** Being taken back (a refund, an expiry), taken back, and left spent because the store had used them. */
  revoking: number;
  revoked: number;
  used: number;
  /** The refused ones (the first 100, oldest first), with Shopify's reason and the next try. */
  failures: Array<{ code: string; amount: string; currency: string; attempts: number; next_attempt_at: string; last_error: string | null }>;
  /** Store credit taken back after refunds (reward-credit-debit.ts): how many wait, were made or were refused, and the refused ones. */
  credit_debits: {
    pending: number;
    done: number;
    failed: number;
    failures: Array<{ debit_id: string; amount: string; currency: string; attempts: number; next_attempt_at: string; last_error: string | null }>;
  };
}

export async function rewardCodeStatus(db: Knex, brandId: string): Promise<RewardCodeStatus> {
  const counts: Array<{ status: string; count: string }> = await db('reward_issues').where({ brand_id: brandId }).groupBy('status').select('status').count({ count: '*' });
  const failures = await db('reward_issues')
    .where({ brand_id: brandId, status: 'failed' })
    .orderBy('issue_id')
    .limit(100)
    .select('code', 'amount', 'currency', 'attempts', 'next_attempt_at', 'last_error');
  const count = (status: string) => Number(counts.find((row) => row.status === status)?.count ?? 0);
  return {
    pending: count('pending'),
    issued: count('issued'),
    failed: count('failed'),
    revoking: count('revoking'),
    revoked: count('revoked'),
    used: count('used'),
    failures: failures.map((row) => ({ ...row, next_attempt_at: new Date(row.next_attempt_at).toISOString() })),
    credit_debits: await creditDebitStatus(db, brandId),
  };
}

async function creditDebitStatus(db: Knex, brandId: string): Promise<RewardCodeStatus['credit_debits']> {
  const counts: Array<{ status: string; count: string }> = await db('reward_credit_debits').where({ brand_id: brandId }).groupBy('status').select('status').count({ count: '*' });
  const failures = await db('reward_credit_debits')
    .where({ brand_id: brandId, status: 'failed' })
    .orderBy('debit_id')
    .limit(100)
    .select('debit_id', 'amount', 'currency', 'attempts', 'next_attempt_at', 'last_error');
  const count = (status: string) => Number(counts.find((row) => row.status === status)?.count ?? 0);
  return {
    pending: count('pending'),
    done: count('done'),
    failed: count('failed'),
    failures: failures.map((row) => ({ ...row, next_attempt_at: new Date(row.next_attempt_at).toISOString() })),
  };
}

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

/** A table's rows of the brand counted by status, and its refused ones (the first 100, oldest first) with the next try. */
async function statusOf<Row extends { next_attempt_at: Date }>(db: Knex, table: string, brandId: string, key: string, columns: string[]) {
  const counts: Array<{ status: string; count: string }> = await db(table).where({ brand_id: brandId }).groupBy('status').select('status').count({ count: '*' });
  const failures = (await db(table).where({ brand_id: brandId, status: 'failed' }).orderBy(key).limit(100).select(...columns, 'attempts', 'next_attempt_at', 'last_error')) as Row[];
  return {
    count: (status: string) => Number(counts.find((row) => row.status === status)?.count ?? 0),
    failures: failures.map((row) => ({ ...row, next_attempt_at: new Date(row.next_attempt_at).toISOString() })),
  };
}

export async function rewardCodeStatus(db: Knex, brandId: string): Promise<RewardCodeStatus> {
  const issues = await statusOf<RewardCodeStatus['failures'][number] & { next_attempt_at: Date }>(db, 'reward_issues', brandId, 'issue_id', ['code', 'amount', 'currency']);
  const debits = await statusOf<RewardCodeStatus['credit_debits']['failures'][number] & { next_attempt_at: Date }>(db, 'reward_credit_debits', brandId, 'debit_id', ['debit_id', 'amount', 'currency']);
  return {
    pending: issues.count('pending'),
    issued: issues.count('issued'),
    failed: issues.count('failed'),
    revoking: issues.count('revoking'),
    revoked: issues.count('revoked'),
    used: issues.count('used'),
    failures: issues.failures,
    credit_debits: { pending: debits.count('pending'), done: debits.count('done'), failed: debits.count('failed'), failures: debits.failures },
  };
}

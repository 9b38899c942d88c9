import type { Knex } from 'knex';
import { lockAdvocate } from '../advocates/advocates';
import { getBrand } from '../brands/brand';
import { currencyExponent } from '../currency';
import { returnIssued } from '../ledger/reward-ledger';
import { minorFromDecimal } from '../money';
import { issueSpendable } from './issue-rewards';
import type { LeasedIssue } from './record-issued';
import type { RevokeReason } from './revoke-issues';

/**
 * The end of taking a code back (core/rewards/revoke-issues.ts marked it `revoking`), whichever
 * platform's worker removed it: its money returns to the balance and what the advocate may spend
 * now (owed money netted first) is issued again, in one transaction; or, used on the store first,
 * it stays spent.
 */

const RETURN_REASON: Record<RevokeReason, string> = {
  refund: 'reward code withdrawn after a refund',
  expired: 'reward code expired',
};

type RevokedIssue = Pick<LeasedIssue, 'brand_id' | 'issue_id' | 'advocate_id'>;

/**
 * The store no longer has the issue's code (removed, or never made): `revoked`, its amount back as
 * an `issued` +amount entry (once per issue), and a new code for what is left. Returns the new
 * issue's id (null: nothing left to issue), or undefined when the issue was no longer being taken
 * back (spent meanwhile: its order's claim returned and redeemed its money).
 */
export async function recordRevoked(db: Knex, issue: RevokedIssue): Promise<number | null | undefined> {
  return db.transaction(async (trx) => {
    const key = { brand_id: issue.brand_id, issue_id: issue.issue_id };
    const advocateId = Number(issue.advocate_id);
    // The advocate's lock first, as issuing takes it: the return and the new code are one step for them.
    await lockAdvocate(trx, issue.brand_id, advocateId);
    const row: { status: string; spent_claim_id: string | null; revoke_reason: RevokeReason; amount: string; currency: string } | undefined = await trx('reward_issues')
      .where(key)
      .forUpdate()
      .first('status', 'spent_claim_id', 'revoke_reason', 'amount', 'currency');
    if (!row || row.status !== 'revoking' || row.spent_claim_id !== null) {
      await trx('reward_issues').where(key).update({ lease_until: null });
      return undefined;
    }
    const exponent = currencyExponent(row.currency);
    await returnIssued(trx, { brandId: issue.brand_id, advocateId, issueId: Number(issue.issue_id), amount: minorFromDecimal(row.amount, exponent), exponent, reason: RETURN_REASON[row.revoke_reason] });
    const [replacement = null] = await issueSpendable(trx, await getBrand(trx, issue.brand_id), [advocateId]);
    await trx('reward_issues').where(key).update({ status: 'revoked', revoked_at: trx.fn.now(), replaced_by: replacement, lease_until: null, last_error: null });
    return replacement;
  });
}

/**
 * The store says the code was used before it could be removed: it stays spent (`used`), its money
 * on the code; the order's own path records the advocate's claim (core/claims/reward-code-claim.ts).
 */
export async function recordUsed(db: Knex, issue: RevokedIssue): Promise<void> {
  await db('reward_issues')
    .where({ brand_id: issue.brand_id, issue_id: issue.issue_id, status: 'revoking' })
    .update({ status: 'used', lease_until: null, last_error: null });
}

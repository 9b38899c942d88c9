import type { Knex } from 'knex';
import { lockAdvocate } from '../advocates/advocates';
import type { Executor } from '../db/transaction';
import { rewardBalance } from '../ledger/reward-ledger';
import { type Minor, minorFromDecimal, toMinor } from '../money';

/**
 * Taking unspent reward codes back (docs/merchants/reward-lifecycle.md "Fulfilment"): an issue is
 * marked `revoking` with why; the platform's worker then removes its code from the store and
 * core/rewards/record-revoked.ts returns its money and issues what is left. Nothing returns to the
 * balance here: the code is still live on the store until the worker has removed it.
 */

/** Why a code is taken back. */
export type RevokeReason = 'refund' | 'expired';

/** An issue not yet spent may still be taken back: on its way to the store, refused, or on it. */
export const UNSPENT_STATUSES = ['pending', 'failed', 'issued'] as const;

/**
 * In a refund's transaction, after its reversal: what the advocate owes once their unspent codes are
 * taken back. When the reversal left them owing, every unspent code of theirs is marked `revoking`
 * (its money comes back and what is left is issued again, owed money first); what those codes cannot
 * cover stays owed. Takes the advocate's lock, as issuing does, only for an advocate who was ever
 * issued a code, so a code issued by a concurrent approval is seen here or nets this reversal.
 */
/**
 * Before a refund locks its reward: the advocate's lock, when they were ever issued a code or credit
 * (the refund may then take it back). The advocate's lock comes before any reward's, as payouts and
 * approvals take them, so a refund and a payout of one advocate never wait on each other.
 */
export async function lockIssuedAdvocateOfConversion(trx: Knex.Transaction, brandId: string, conversionId: number): Promise<void> {
  const reward: { advocate_id: string } | undefined = await trx('rewards').where({ brand_id: brandId, conversion_id: conversionId }).first('advocate_id');
  if (!reward) return;
  const everIssued = await trx('reward_issues').where({ brand_id: brandId, advocate_id: reward.advocate_id }).first('issue_id');
  if (everIssued) await lockAdvocate(trx, brandId, Number(reward.advocate_id));
}

export async function owedAfterRevoking(trx: Knex.Transaction, brandId: string, advocateId: number, exponent: number): Promise<Minor> {
  const owed = async () => toMinor((await rewardBalance(trx, brandId, advocateId)).owed, exponent);
  const everIssued = await trx('reward_issues').where({ brand_id: brandId, advocate_id: advocateId }).first('issue_id');
  if (!everIssued) return owed();
  await lockAdvocate(trx, brandId, advocateId);
  const before = await owed();
  if (before <= 0) return 0;
  const marked: Array<{ amount: string }> = await unspent(trx('reward_issues').where({ brand_id: brandId, advocate_id: advocateId }))
    .update(revoking(trx, 'refund'))
    .returning('amount');
  const takenBack = marked.reduce((total, row) => total + minorFromDecimal(row.amount, exponent), 0);
  return Math.max(0, before - takenBack);
}

/** Unspent codes past their expires_at (of one brand, or all) are marked to be taken back. Returns how many. */
export async function expireIssues(db: Executor, options: { brandId?: string } = {}): Promise<number> {
  const query = unspent(db('reward_issues').where('expires_at', '<=', db.fn.now()));
  if (options.brandId) query.andWhere({ brand_id: options.brandId });
  return query.update(revoking(db, 'expired'));
}

/** Codes only: a store credit's money is on the customer's account, which a debit would take back (not built: it stays owed, docs/merchants/shopify.md "Store credit"). */
function unspent(query: Knex.QueryBuilder): Knex.QueryBuilder {
  return query.whereIn('status', [...UNSPENT_STATUSES]).whereNull('spent_claim_id').where({ method: 'code' });
}

/** The marking: due at once for the worker's next pass. */
const revoking = (db: Executor, reason: RevokeReason) => ({ status: 'revoking', revoke_reason: reason, next_attempt_at: db.fn.now(), last_error: null });

import type { Knex } from 'knex';
import { lockAdvocate } from '../advocates/advocates';
import { getBrand } from '../brands/brand';
import { currencyExponent } from '../currency';
import { returnDebited } from '../ledger/reward-ledger';
import { type Minor, decimalFromMinor } from '../money';
import { issueSpendable } from './issue-rewards';

/**
 * The end of taking store credit back (core/rewards/request-credit-debits.ts asked for it), whichever
 * platform's worker debited it: the debit `done` with what the account gave, that money back in the
 * balance as a `credit_debit` entry, and anything the balance now holds issued again — in one
 * transaction. What the account could not give stays owed; the next reward pays it off first.
 */

/** A debit request's states: asked for, refused and waiting to be tried again, or done (what the account gave, 0 or more). The database CHECKs the same list. */
export const CREDIT_DEBIT_STATUSES = ['pending', 'failed', 'done'] as const;

/** A debit request as a platform's worker leases it. */
export interface LeasedDebit {
  brand_id: string;
  debit_id: string;
  issue_id: string;
  advocate_id: string;
  amount: string;
  currency: string;
  attempts: number;
  sent_at: Date | null;
  sent_amount: string | null;
}

/**
 * Records what the store debited (`debited`, 0 when the account held nothing; `platformId`, its
 * debit transaction). Returns false when the debit was already recorded (another pass got there first).
 */
export async function recordCreditDebit(db: Knex, debit: LeasedDebit, result: { debited: Minor; platformId: string | null }): Promise<boolean> {
  return db.transaction(async (trx) => {
    const advocateId = Number(debit.advocate_id);
    // The advocate's lock first, as issuing takes it: the return and what is issued of it are one step for them.
    await lockAdvocate(trx, debit.brand_id, advocateId);
    const exponent = currencyExponent(debit.currency);
    const moved = await trx('reward_credit_debits')
      .where({ brand_id: debit.brand_id, debit_id: debit.debit_id })
      .whereIn('status', ['pending', 'failed'])
      .update({
        status: 'done',
        debited: decimalFromMinor(result.debited, exponent),
        platform_id: result.platformId,
        attempts: debit.attempts + 1,
        done_at: trx.fn.now(),
        last_error: null,
        lease_until: null,
      })
      .returning('debit_id');
    if (moved.length === 0) return false;
    if (result.debited > 0) {
      await returnDebited(trx, { brandId: debit.brand_id, advocateId, issueId: Number(debit.issue_id), amount: result.debited, exponent });
      // Owed money is netted first; only what is left over (a reward approved since the refund) is issued.
      await issueSpendable(trx, await getBrand(trx, debit.brand_id), [advocateId]);
    }
    return true;
  });
}

import type { Knex } from 'knex';
import { type Minor, decimalFromMinor, minorFromDecimal } from '../money';

/**
 * Taking store credit back (docs/merchants/shopify.md "Store credit"): in a refund's transaction,
 * after its codes are marked (revoke-issues.ts, which holds the advocate's lock), what the advocate
 * still owes beyond the debits already asked for is asked of their credited issues, newest first,
 * each for at most what it credited less what was debited or is asked of it already. The
 * platform's worker debits what the account still holds (core/rewards/record-credit-debit.ts);
 * nothing returns to the balance here, so what the refund took stays owed until it is debited.
 */

/** Debits asked for and not yet done. */
const OUTSTANDING = ['pending', 'failed'] as const;

/** Writes the debit requests of a refund that left the advocate owing `owed` after their codes. Returns the amount asked for. */
export async function requestCreditDebits(
  trx: Knex.Transaction,
  brandId: string,
  refund: { advocateId: number; refundPk: number; owed: Minor; exponent: number },
): Promise<Minor> {
  if (refund.owed <= 0) return 0;
  const money = (value: string | null) => minorFromDecimal(value ?? '0', refund.exponent);
  const asked: { total?: string | null } | undefined = await trx('reward_credit_debits')
    .where({ brand_id: brandId, advocate_id: refund.advocateId })
    .whereIn('status', [...OUTSTANDING])
    .sum({ total: 'amount' })
    .first();
  let left = refund.owed - money(asked?.total ?? null);
  if (left <= 0) return 0;
  const credits: Array<{ issue_id: string; amount: string; currency: string; taken: string | null }> = await trx('reward_issues as i')
    .leftJoin('reward_credit_debits as d', (join) => join.on('d.brand_id', 'i.brand_id').andOn('d.issue_id', 'i.issue_id'))
    .where({ 'i.brand_id': brandId, 'i.advocate_id': refund.advocateId, 'i.method': 'store_credit', 'i.status': 'issued' })
    .groupBy('i.issue_id', 'i.amount', 'i.currency')
    .orderBy('i.issue_id', 'desc')
    .select('i.issue_id', 'i.amount', 'i.currency', trx.raw("sum(CASE WHEN d.status = 'done' THEN d.debited ELSE d.amount END) AS taken"));
  const requests = [];
  let requested = 0;
  for (const credit of credits) {
    const amount = Math.min(left, money(credit.amount) - money(credit.taken));
    if (amount <= 0) continue;
    requests.push({
      brand_id: brandId,
      issue_id: credit.issue_id,
      advocate_id: refund.advocateId,
      refund_pk: refund.refundPk,
      amount: decimalFromMinor(amount, refund.exponent),
      currency: credit.currency,
    });
    left -= amount;
    requested += amount;
    if (left <= 0) break;
  }
  if (requests.length > 0) await trx('reward_credit_debits').insert(requests);
  return requested;
}

import type { Knex } from 'knex';
import type { Executor } from '../db/transaction';
import { currencyExponent } from '../currency';
import { type Minor, amountFromMinor, decimalFromMinor, minorFromDecimal, prorate } from '../money';
import type { LedgerEntryKind } from './entry-kind';

/** The append-only ledger of advocate rewards: the one place that writes or sums it. */

/** Credits a conversion's reward; a second credit for the same conversion is ignored (unique index). */
export async function creditReward(
  db: Executor,
  entry: { brandId: string; advocateId: number; conversionId: number; amount: Minor; exponent: number },
): Promise<boolean> {
  if (entry.amount <= 0) return false;
  const inserted = await db('reward_ledger')
    .insert({
      brand_id: entry.brandId,
      advocate_id: entry.advocateId,
      conversion_id: entry.conversionId,
      kind: 'credit' satisfies LedgerEntryKind,
      amount: decimalFromMinor(entry.amount, entry.exponent),
    })
    .onConflict(db.raw("(brand_id, conversion_id) WHERE kind = 'credit'"))
    .ignore()
    .returning('entry_id');
  return inserted.length > 0;
}

/**
 * creditReward for a conversion inserted in the same statement: the body of a CTE that credits
 * the row of CTE `source` (conversion_id, advocate_id, status, referrer_reward_paid) when it is
 * completed with a positive reward, so recording an order costs one round trip.
 */
export function creditNewConversion(db: Executor, brandId: string, source: string): Knex.Raw {
  return db.raw(
    `INSERT INTO reward_ledger (brand_id, advocate_id, conversion_id, kind, amount)
     SELECT ?, advocate_id, conversion_id, 'credit', referrer_reward_paid FROM ??
     WHERE status = 'completed' AND referrer_reward_paid > 0
     ON CONFLICT (brand_id, conversion_id) WHERE kind = 'credit' DO NOTHING`,
    [brandId, source],
  );
}

/** Sums of one conversion's or one claim's ledger entries, by kind (reversals are negative). */
async function sumsByKind(db: Executor, where: Record<string, unknown>, exponent: number): Promise<(kind: LedgerEntryKind) => Minor> {
  const rows: Array<{ kind: LedgerEntryKind; total: string }> = await db('reward_ledger')
    .select('kind')
    .sum({ total: 'amount' })
    .where(where)
    .groupBy('kind');
  return (kind) => minorFromDecimal(rows.find((row) => row.kind === kind)?.total ?? '0', exponent);
}

/**
 * How much more of `given` a refund undoes: given × refunded / order value, computed on the
 * cumulative refund (what should be undone by now, minus what already was) so rounding never
 * drifts; a full refund undoes all that is left.
 */
function stillToUndo(given: Minor, undone: Minor, refundedTotal: Minor, orderValue: Minor, full: boolean): Minor {
  const due = full ? given : prorate(given, refundedTotal, orderValue);
  return Math.min(given - undone, Math.max(0, due - undone));
}

interface RefundShare {
  brandId: string;
  advocateId: number;
  refundPk: number;
  /** In the order's currency: only their ratio counts. */
  refundedTotal: Minor;
  orderValue: Minor;
  full: boolean;
  /** The brand's currency's exponent: the ledger's amounts are in it. */
  exponent: number;
}

/** Reverses the reward a refunded conversion credited, pro rata. Returns the amount reversed. */
export async function reverseConversionReward(db: Executor, entry: RefundShare & { conversionId: number }): Promise<Minor> {
  const sum = await sumsByKind(db, { brand_id: entry.brandId, conversion_id: entry.conversionId }, entry.exponent);
  const amount = stillToUndo(sum('credit'), -sum('reversal'), entry.refundedTotal, entry.orderValue, entry.full);
  if (amount <= 0) return 0;
  await db('reward_ledger').insert({
    brand_id: entry.brandId,
    advocate_id: entry.advocateId,
    conversion_id: entry.conversionId,
    refund_pk: entry.refundPk,
    kind: 'reversal' satisfies LedgerEntryKind,
    amount: decimalFromMinor(-amount, entry.exponent),
  });
  return amount;
}

/** An advocate claim spends the advocate's reward; one redemption per claim (unique index). */
export async function redeemReward(
  db: Executor,
  entry: { brandId: string; advocateId: number; claimId: number; amount: Minor; exponent: number },
): Promise<void> {
  if (entry.amount <= 0) return;
  await db('reward_ledger')
    .insert({
      brand_id: entry.brandId,
      advocate_id: entry.advocateId,
      claim_id: entry.claimId,
      kind: 'redemption' satisfies LedgerEntryKind,
      amount: decimalFromMinor(-entry.amount, entry.exponent),
    })
    .onConflict(db.raw("(brand_id, claim_id) WHERE kind = 'redemption'"))
    .ignore();
}

/**
 * Gives back what a refunded advocate claim redeemed, pro rata on the cumulative refund (all of
 * it on a full refund), never more than was redeemed. Returns the amount given back.
 */
export async function returnRedemption(db: Executor, entry: RefundShare & { claimId: number }): Promise<Minor> {
  const sum = await sumsByKind(db, { brand_id: entry.brandId, claim_id: entry.claimId }, entry.exponent);
  const amount = stillToUndo(-sum('redemption'), sum('redemption_return'), entry.refundedTotal, entry.orderValue, entry.full);
  if (amount <= 0) return 0;
  await db('reward_ledger').insert({
    brand_id: entry.brandId,
    advocate_id: entry.advocateId,
    claim_id: entry.claimId,
    refund_pk: entry.refundPk,
    kind: 'redemption_return' satisfies LedgerEntryKind,
    amount: decimalFromMinor(amount, entry.exponent),
  });
  return amount;
}

export interface RewardBalance {
  advocate_id: number;
  /** The brand's currency: every entry of the ledger is in it, so a balance never mixes two. */
  currency: string;
  credited: number;
  reversed: number;
  redeemed: number;
  balance: number;
}

export async function rewardBalance(db: Executor, brandId: string, advocateId: number): Promise<RewardBalance> {
  const { currency } = await db('brands').select('currency').where({ brand_id: brandId }).first();
  const exponent = currencyExponent(currency);
  const byKind = await sumsByKind(db, { brand_id: brandId, advocate_id: advocateId }, exponent);
  const credited = byKind('credit');
  const reversed = -byKind('reversal');
  const redeemed = -byKind('redemption') - byKind('redemption_return');
  const amount = (minor: Minor) => amountFromMinor(minor, exponent);
  return {
    advocate_id: advocateId,
    currency,
    credited: amount(credited),
    reversed: amount(reversed),
    redeemed: amount(redeemed),
    balance: amount(credited - reversed - redeemed),
  };
}

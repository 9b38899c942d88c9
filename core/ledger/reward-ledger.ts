import type { Knex } from 'knex';
import type { Executor } from '../db/transaction';
import { currencyExponent } from '../currency';
import { type Minor, amountFromMinor, decimalFromMinor, minorFromDecimal, prorate } from '../money';
import { HELD_KINDS, type LedgerEntryKind } from './entry-kind';
import type { RewardBalance } from './reward-balance';

export type { RewardBalance } from './reward-balance';

/**
 * The append-only ledger of advocate rewards: the one place that writes or sums it. Every entry is
 * in the brand's currency; amounts in code are its minor units (`exponent`: JPY 0, USD 2, KWD 3).
 */

/** Who made a ledger entry: an API key (`api_key:<key id>`), `cli`, or `system` (jobs, refunds). */
export type Actor = string;

export interface LedgerEntry {
  brandId: string;
  advocateId: number;
  kind: LedgerEntryKind;
  /** Signed minor units of the brand's currency: what the entry adds to (or, negative, takes from) its bucket. */
  amount: Minor;
  /** The brand's currency's exponent. */
  exponent: number;
  actor: Actor;
  reason: string | null;
  rewardId?: number;
  conversionId?: number;
  refundPk?: number;
  payoutId?: string;
}

/** Appends entries; the ledger is never updated or deleted from. */
export async function postEntries(db: Executor, entries: LedgerEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await db('reward_ledger').insert(
    entries.map((entry) => ({
      brand_id: entry.brandId,
      advocate_id: entry.advocateId,
      kind: entry.kind,
      amount: decimalFromMinor(entry.amount, entry.exponent),
      actor: entry.actor,
      reason: entry.reason,
      reward_id: entry.rewardId ?? null,
      conversion_id: entry.conversionId ?? null,
      refund_pk: entry.refundPk ?? null,
      payout_id: entry.payoutId ?? null,
    })),
  );
}

/**
 * The ledger entry of rewards created in the same statement: the body of a CTE over CTE `source`
 * (brand_id, reward_id, conversion_id, advocate_id, amount, status) — `credit` for a reward
 * approved at once (no hold), `hold` for a held one — so recording orders stays one round trip.
 */
export function creditNewRewards(db: Executor, source: string): Knex.Raw {
  return db.raw(
    `INSERT INTO reward_ledger (brand_id, advocate_id, conversion_id, reward_id, kind, amount, actor, reason)
     SELECT brand_id, advocate_id, conversion_id, reward_id, CASE WHEN status = 'approved' THEN 'credit' ELSE 'hold' END, amount,
       'system', 'conversion completed'
     FROM ??`,
    [source],
  );
}

/** What one reward's entries add up to: held, approved (before payouts), and undone by refunds. */
export interface RewardSums {
  held: Minor;
  approved: Minor;
  refunded: Minor;
}

export async function rewardSums(db: Executor, brandId: string, rewardId: number, exponent: number): Promise<RewardSums> {
  const sum = await sumsByKind(db, { brand_id: brandId, reward_id: rewardId }, exponent);
  return {
    held: HELD_KINDS.reduce((total, kind) => total + sum(kind), 0),
    approved: sum('credit') + sum('reversal') + sum('void'),
    refunded: -sum('reversal') - sum('hold_reversal'),
  };
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
  /** In the order's currency (only their ratio counts). */
  refundedTotal: Minor;
  orderValue: Minor;
  full: boolean;
  /** The brand's currency's exponent: the ledger's amounts are in it. */
  exponent: number;
}

/**
 * Reverses a refunded conversion's reward pro rata (of the reward as created): from the held
 * bucket while it is held (`hold_reversal`), else from the approved one (`reversal`), never more
 * than the reward still holds there. Returns the amount reversed.
 */
export async function reverseReward(
  db: Executor,
  entry: RefundShare & { conversionId: number; rewardId: number; rewardAmount: Minor; held: boolean },
): Promise<Minor> {
  const sums = await rewardSums(db, entry.brandId, entry.rewardId, entry.exponent);
  const still = entry.held ? sums.held : sums.approved;
  const amount = Math.min(still, stillToUndo(entry.rewardAmount, sums.refunded, entry.refundedTotal, entry.orderValue, entry.full));
  if (amount <= 0) return 0;
  await postEntries(db, [
    {
      brandId: entry.brandId,
      advocateId: entry.advocateId,
      conversionId: entry.conversionId,
      rewardId: entry.rewardId,
      refundPk: entry.refundPk,
      kind: entry.held ? 'hold_reversal' : 'reversal',
      amount: -amount,
      exponent: entry.exponent,
      actor: 'system',
      reason: 'order refunded',
    },
  ]);
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
 * A reward code's money back from the code into the balance (an `issued` entry of +amount): for
 * the advocate claim that records its use to redeem what the order took, or for a code taken back
 * unspent (core/rewards/record-revoked.ts). Once per issue, whichever comes first.
 */
export async function returnIssued(
  db: Executor,
  entry: { brandId: string; advocateId: number; issueId: number; amount: Minor; exponent: number; reason?: string },
): Promise<void> {
  await db('reward_ledger')
    .insert({
      brand_id: entry.brandId,
      advocate_id: entry.advocateId,
      issue_id: entry.issueId,
      kind: 'issued' satisfies LedgerEntryKind,
      amount: decimalFromMinor(entry.amount, entry.exponent),
      actor: 'system',
      reason: entry.reason ?? 'reward code used',
    })
    .onConflict(db.raw("(brand_id, issue_id) WHERE kind = 'issued' AND amount > 0"))
    .ignore();
}

/**
 * What a debit took back from the advocate's store credit, into the balance (a `credit_debit`
 * entry of +amount, with the credit's issue_id): after a refund, the debit's own row guards it once
 * (core/rewards/record-credit-debit.ts); one issue may be debited by several refunds.
 */
export async function returnDebited(db: Executor, entry: { brandId: string; advocateId: number; issueId: number; amount: Minor; exponent: number }): Promise<void> {
  if (entry.amount <= 0) return;
  await db('reward_ledger').insert({
    brand_id: entry.brandId,
    advocate_id: entry.advocateId,
    issue_id: entry.issueId,
    kind: 'credit_debit' satisfies LedgerEntryKind,
    amount: decimalFromMinor(entry.amount, entry.exponent),
    actor: 'system',
    reason: 'store credit debited after a refund',
  });
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

/**
 * Approved money not paid out or spent, as it is paid or owed: above zero it is payable, below
 * zero owed (the one definition of owed, for every page, CSV and API); the other is 0.
 */
export function payableOrOwed(unspent: Minor): { payable: Minor; owed: Minor } {
  return { payable: Math.max(0, unspent), owed: Math.max(0, -unspent) };
}

/**
 * The figures as a person reads them: what is owed is shown as owed, so the spendable balance and
 * "approved, not paid out" never read below zero (the API's `balance` and `approved` are the
 * ledger's sums and may).
 */
export function figuresAsShown<T extends Pick<RewardBalance, 'balance' | 'approved'>>(figures: T): T {
  return { ...figures, balance: Math.max(0, figures.balance), approved: Math.max(0, figures.approved) };
}

/** The figures from one advocate's sums by kind (each kind's signed sum, in minor units of `currency`). */
export function balanceFrom(
  advocateId: number,
  sum: (kind: LedgerEntryKind) => Minor,
  allowPendingRedemption: boolean,
  currency: string,
): RewardBalance {
  const credited = sum('credit');
  const reversed = -sum('reversal');
  const redeemed = -sum('redemption') - sum('redemption_return');
  const paid = -sum('payout');
  // Store credit debited back after a refund is no longer issued: it is in the balance again.
  const issued = -sum('issued') - sum('credit_debit');
  const pending = HELD_KINDS.reduce((total, kind) => total + sum(kind), 0);
  const approved = credited - reversed + sum('void') - paid - issued;
  const exponent = currencyExponent(currency);
  const amount = (minor: Minor) => amountFromMinor(minor, exponent);
  const { payable, owed } = payableOrOwed(approved - redeemed);
  return {
    advocate_id: advocateId,
    currency,
    credited: amount(credited),
    reversed: amount(reversed),
    redeemed: amount(redeemed),
    balance: amount(approved - redeemed + (allowPendingRedemption ? pending : 0)),
    pending: amount(pending),
    approved: amount(approved),
    paid: amount(paid),
    issued: amount(issued),
    voided: amount(-sum('void') - sum('hold_void')),
    payable: amount(payable),
    owed: amount(owed),
  };
}

/**
 * An advocate's figures, in the brand's currency. `allowPendingRedemption` is the brand's
 * setting; read from the brand when the caller does not have it.
 */
export async function rewardBalance(db: Executor, brandId: string, advocateId: number, allowPendingRedemption?: boolean): Promise<RewardBalance> {
  const brand: { currency: string; allow_pending_redemption: boolean } = await db('brands')
    .select('currency', 'allow_pending_redemption')
    .where({ brand_id: brandId })
    .first();
  const byKind = await sumsByKind(db, { brand_id: brandId, advocate_id: advocateId }, currencyExponent(brand.currency));
  return balanceFrom(advocateId, byKind, allowPendingRedemption ?? Boolean(brand.allow_pending_redemption), brand.currency);
}

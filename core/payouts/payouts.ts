import { counted } from '../counted';
import type { Knex } from 'knex';
import { lockAdvocate } from '../advocates/advocates';
import type { Executor } from '../db/transaction';
import { Conflict, Invalid, NotFound } from '../errors';
import { type Actor, type RewardBalance, balanceFrom, postEntries, rewardBalance } from '../ledger/reward-ledger';
import type { LedgerEntryKind } from '../ledger/entry-kind';
import type { Brand } from '../brands/brand';
import { currencyExponent } from '../currency';
import { enqueueMail } from '../mail/enqueue-mail';
import { rewardPaidMail } from '../mail/program-mail';
import { type Minor, amountFromMinor, decimalFromMinor, exactMinor, minorFromDecimal, toMinor } from '../money';

/**
 * Payouts (docs/merchants/reward-lifecycle.md "Payouts"): what each advocate may be paid — approved money not
 * yet paid out or redeemed — and recording a file of payments once, by its payout ids.
 */

/** An advocate, in the brand's currency: what they may be paid (a payout line) or what they owe. */
export interface AdvocateAmount {
  advocate_id: number;
  email: string;
  code: string;
  /** The brand's currency: rewards, like the whole ledger, are in it. */
  currency: string;
  amount: number;
}

export interface PayoutLine extends AdvocateAmount {
  /** Derived from the advocate and their latest ledger entry: the same until their money changes. */
  payout_id: string;
}

interface SumRow {
  advocate_id: string;
  kind: LedgerEntryKind;
  total: string;
  last_entry: string;
}

/** Advocates whose payable amount is at least `min` (major units of the brand's currency; and above zero), by advocate id. */
export async function payoutCandidates(db: Executor, brand: Brand, min: number): Promise<PayoutLine[]> {
  const exponent = currencyExponent(brand.currency);
  const minMinor = exactMinor(min, exponent, '--min', brand.currency);
  const due = (await advocateBalances(db, brand)).filter(({ balance }) => balance.payable > 0 && toMinor(balance.payable, exponent) >= minMinor);
  const lines = await withContacts(db, brand, due.map(({ balance }) => ({ advocateId: balance.advocate_id, amount: balance.payable })));
  return lines.map((line, index) => ({ payout_id: `P-${line.advocate_id}-${due[index]!.lastEntry}`, ...line }));
}

/** Advocates who owe money (refunds took back more than they had, reward-lifecycle.md "Balance figures"), by advocate id: never payable. */
export async function owedByAdvocates(db: Executor, brand: Brand): Promise<AdvocateAmount[]> {
  const owing = (await advocateBalances(db, brand)).filter(({ balance }) => balance.owed > 0);
  return withContacts(db, brand, owing.map(({ balance }) => ({ advocateId: balance.advocate_id, amount: balance.owed })));
}

/** Every advocate of the brand with ledger entries: their figures and their latest entry's id, by advocate id. */
async function advocateBalances(db: Executor, brand: Brand): Promise<Array<{ balance: RewardBalance; lastEntry: number }>> {
  const exponent = currencyExponent(brand.currency);
  const sums: SumRow[] = await db('reward_ledger')
    .select('advocate_id', 'kind')
    .sum({ total: 'amount' })
    .max({ last_entry: 'entry_id' })
    .where({ brand_id: brand.brand_id })
    .groupBy('advocate_id', 'kind');
  const byAdvocate = new Map<number, SumRow[]>();
  for (const row of sums) {
    const id = Number(row.advocate_id);
    byAdvocate.set(id, [...(byAdvocate.get(id) ?? []), row]);
  }
  return [...byAdvocate]
    .sort(([a], [b]) => a - b)
    .map(([advocateId, rows]) => {
      const sum = (kind: LedgerEntryKind) => minorFromDecimal(rows.find((row) => row.kind === kind)?.total ?? '0', exponent);
      return { balance: balanceFrom(advocateId, sum, false, brand.currency), lastEntry: Math.max(...rows.map((row) => Number(row.last_entry))) };
    });
}

/** The advocates' email and first referral code beside each amount, in the order given. */
async function withContacts(db: Executor, brand: Brand, lines: Array<{ advocateId: number; amount: number }>): Promise<AdvocateAmount[]> {
  if (lines.length === 0) return [];
  const advocates: Array<{ advocate_id: string; email: string; code: string | null }> = await db('advocates as a')
    .select(
      'a.advocate_id',
      'a.email',
      db.raw('(SELECT min(code) FROM referral_codes c WHERE c.brand_id = a.brand_id AND c.advocate_id = a.advocate_id AND c.kind = ?) AS code', ['referral']),
    )
    .where('a.brand_id', brand.brand_id)
    .whereIn('a.advocate_id', lines.map((line) => line.advocateId));
  const info = new Map(advocates.map((row) => [Number(row.advocate_id), row]));
  return lines.map((line) => ({
    advocate_id: line.advocateId,
    email: info.get(line.advocateId)?.email ?? '',
    code: info.get(line.advocateId)?.code ?? '',
    currency: brand.currency,
    amount: line.amount,
  }));
}

/** One row of a mark-paid file, already parsed; `row` is its line number, for messages. */
export interface PaidRow {
  row: number;
  payout_id: string;
  advocate_id: number;
  /** Major units of the brand's currency, as the file says. */
  amount: number;
}

export interface MarkPaidResult {
  recorded: number;
  already_recorded: number;
  total_paid: number;
  message: string;
}

/**
 * Records a file of payouts in one transaction: all of it or, when a row is refused, none of it.
 * A payout id already recorded (the same advocate and amount) is skipped, so the same file twice
 * changes nothing; a row paying more than the advocate's payable amount is refused, naming it.
 */
export async function markPaid(trx: Knex.Transaction, brand: Brand, paidRows: PaidRow[], actor: Actor): Promise<MarkPaidResult> {
  const brandId = brand.brand_id;
  const exponent = currencyExponent(brand.currency);
  const decimal = (minor: Minor) => decimalFromMinor(minor, exponent);
  const rows = paidRows.map((row) => ({ ...row, amount: exactMinor(row.amount, exponent, `row ${row.row}: amount`, brand.currency) }));
  const seen = new Map<string, number>();
  for (const row of rows) {
    const first = seen.get(row.payout_id);
    if (first !== undefined) throw new Invalid(`row ${row.row}: payout_id ${row.payout_id} is also on row ${first}`);
    seen.set(row.payout_id, row.row);
  }
  const earlier: Array<{ payout_id: string; advocate_id: string; amount: string }> = rows.length
    ? await trx('reward_ledger').select('payout_id', 'advocate_id', 'amount').where({ brand_id: brandId, kind: 'payout' }).whereIn('payout_id', [...seen.keys()])
    : [];
  const recorded = new Map(earlier.map((entry) => [entry.payout_id, entry]));
  const fresh: typeof rows = [];
  for (const row of rows) {
    const before = recorded.get(row.payout_id);
    if (!before) {
      fresh.push(row);
    } else if (Number(before.advocate_id) !== row.advocate_id || -minorFromDecimal(before.amount, exponent) !== row.amount) {
      throw new Conflict(
        `row ${row.row}: payout_id ${row.payout_id} was already recorded for advocate ${before.advocate_id}, ` +
          `amount ${decimal(-minorFromDecimal(before.amount, exponent))}; this row says advocate ${row.advocate_id}, amount ${decimal(row.amount)}`,
      );
    }
  }

  // Advocates in a fixed order (their id), each before their rewards (redemptions lock the advocate too).
  const advocates = [...new Set(fresh.map((row) => row.advocate_id))].sort((a, b) => a - b);
  const payable = new Map<number, Minor>();
  for (const advocateId of advocates) {
    await lockAdvocate(trx, brandId, advocateId).catch((error: unknown) => {
      if (!(error instanceof NotFound)) throw error;
      const row = fresh.find((candidate) => candidate.advocate_id === advocateId)!;
      throw new Invalid(`row ${row.row}: advocate ${advocateId} not found`);
    });
    // Then their approved rewards: a void or refund of one waits for this payout, and sees what it paid.
    await trx('rewards').select('reward_id').where({ brand_id: brandId, advocate_id: advocateId, status: 'approved' }).orderBy('reward_id').forUpdate();
    payable.set(advocateId, toMinor((await rewardBalance(trx, brandId, advocateId, false)).payable, exponent));
  }
  for (const row of fresh) {
    const left = payable.get(row.advocate_id)!;
    if (row.amount > left) {
      throw new Invalid(
        `row ${row.row} (payout_id ${row.payout_id}): amount ${decimal(row.amount)} exceeds advocate ${row.advocate_id}'s ` +
          `approved unpaid balance ${decimal(left)}`,
      );
    }
    payable.set(row.advocate_id, left - row.amount);
  }
  for (const row of fresh) {
    await postEntries(trx, [
      { brandId, exponent, advocateId: row.advocate_id, kind: 'payout', amount: -row.amount, payoutId: row.payout_id, actor, reason: 'payout marked paid' },
    ]);
    await allocateToRewards(trx, brandId, exponent, row.advocate_id, row.amount);
  }
  await enqueueMail(trx, fresh.map((row) => rewardPaidMail(brandId, row.advocate_id, row.payout_id, row.amount, exponent)));
  const total = fresh.reduce((sum, row) => sum + row.amount, 0);
  const skipped = rows.length - fresh.length;
  return {
    recorded: fresh.length,
    already_recorded: skipped,
    total_paid: amountFromMinor(total, exponent),
    message:
      fresh.length === 0
        ? `nothing changed: ${rows.length === 1 ? 'the payout was' : `all ${counted(rows.length, 'payout', 'payouts')} were`} already recorded`
        : `recorded ${counted(fresh.length, 'payout', 'payouts')} (${decimal(total)} ${brand.currency})` + (skipped ? `; ${counted(skipped, 'was', 'were')} already recorded and skipped` : ''),
  };
}

/** Marks the paid money on the advocate's approved rewards (locked by markPaid), oldest approval first: a paid reward cannot be voided. */
async function allocateToRewards(trx: Knex.Transaction, brandId: string, exponent: number, advocateId: number, amount: Minor): Promise<void> {
  const rewards: Array<{ reward_id: string; paid_amount: string; approved: string | null }> = await trx('rewards as r')
    .select('r.reward_id', 'r.paid_amount')
    .select(
      trx.raw(
        `(SELECT sum(l.amount) FROM reward_ledger l WHERE l.brand_id = r.brand_id AND l.reward_id = r.reward_id
          AND l.kind IN ('credit', 'reversal', 'void')) AS approved`,
      ),
    )
    .where({ 'r.brand_id': brandId, 'r.advocate_id': advocateId, 'r.status': 'approved' })
    .orderBy([{ column: 'r.approved_at' }, { column: 'r.reward_id' }]);
  let left = amount;
  for (const reward of rewards) {
    if (left <= 0) return;
    const room = minorFromDecimal(reward.approved ?? '0', exponent) - minorFromDecimal(reward.paid_amount, exponent);
    const share = Math.min(left, room);
    if (share <= 0) continue;
    await trx('rewards')
      .where({ brand_id: brandId, reward_id: reward.reward_id })
      .update({ paid_amount: decimalFromMinor(minorFromDecimal(reward.paid_amount, exponent) + share, exponent), updated_at: trx.fn.now() });
    left -= share;
  }
}

export interface PaidPayout {
  payout_id: string;
  advocate_id: number;
  email: string;
  amount: number;
  currency: string;
  recorded_by: string;
  recorded_at: string;
}

/** Payouts already recorded, newest first (the ledger's payout entries). */
export async function paidPayouts(db: Executor, brand: Brand, limit: number): Promise<PaidPayout[]> {
  const exponent = currencyExponent(brand.currency);
  const rows: Array<{ payout_id: string; advocate_id: string; email: string; amount: string; actor: string; created_at: Date }> = await db('reward_ledger as l')
    .join('advocates as a', function joinAdvocate() {
      this.on('a.brand_id', 'l.brand_id').andOn('a.advocate_id', 'l.advocate_id');
    })
    .where({ 'l.brand_id': brand.brand_id, 'l.kind': 'payout' })
    .orderBy('l.entry_id', 'desc')
    .limit(limit)
    .select('l.payout_id', 'l.advocate_id', 'a.email', 'l.amount', 'l.actor', 'l.created_at');
  return rows.map((row) => ({
    payout_id: row.payout_id,
    advocate_id: Number(row.advocate_id),
    email: row.email,
    amount: amountFromMinor(-minorFromDecimal(row.amount, exponent), exponent),
    currency: brand.currency,
    recorded_by: row.actor,
    recorded_at: new Date(row.created_at).toISOString(),
  }));
}

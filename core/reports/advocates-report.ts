import { currencyCode, currencyExponent } from '../currency';
import type { Executor } from '../db/transaction';
import { NotFound } from '../errors';
import { HELD_KINDS, type LedgerEntryKind } from '../ledger/entry-kind';
import { type RewardBalance, figuresAsShown, payableOrOwed, rewardBalance } from '../ledger/reward-ledger';
import { amountFromMinor, minorFromDecimal } from '../money';
import { type Page, containsPattern, pageOf } from './page';
import type { Period } from './period';
import { inBrandCurrency, reportAmounts, reportCurrency } from './report-currency';

/** The held bucket's ledger kinds (constants of the code, not input), as an SQL list. */
const HELD_KINDS_SQL = HELD_KINDS.map((kind) => `'${kind}'`).join(', ');

export interface AdvocateRow {
  advocate_id: number;
  email: string;
  first_name: string;
  last_name: string | null;
  codes: string;
  /** Paid conversions and their order value within the period, in the brand's currency. */
  conversions: number;
  revenue: number;
  /** All-time spendable reward balance: approved − paid − redeemed (held rewards not counted), at least 0... */
  balance: number;
  /** ...and below 0 it is owed (payableOrOwed, the ledger's one definition). */
  owed: number;
  /** Held now: pending and in-review rewards, net of refunds during the hold (not spendable yet). */
  pending: number;
}

/** A page of advocates; every money figure is in `currency`, the brand's. */
export interface AdvocatesPage extends Page<AdvocateRow> {
  currency: string;
}

export interface AdvocatesQuery {
  period: Period;
  search?: string;
  page: number;
  perPage: number;
}

interface AdvocateRecord {
  advocate_id: string;
  email: string;
  first_name: string;
  last_name: string | null;
  codes: string | null;
  conversions: number;
  revenue: string | null;
  balance: string | null;
  pending: string | null;
}

/**
 * Advocates, oldest first, matching `search` in the email, name or any code; each page's
 * conversion figures are summed for its rows only, over the period.
 */
export async function advocatesReport(db: Executor, brandId: string, query: AdvocatesQuery): Promise<AdvocatesPage> {
  const currency = await reportCurrency(db, brandId);
  const money = reportAmounts(currency);
  const search = query.search?.trim();
  const pattern = search ? containsPattern(search.toLowerCase()) : null;
  const result = await db.raw<{ rows: AdvocateRecord[] }>(
    `WITH page AS (
       SELECT a.advocate_id, a.email, a.first_name, a.last_name
         FROM advocates a
        WHERE a.brand_id = :brandId
          AND (CAST(:pattern AS text) IS NULL
               OR a.email_normalized LIKE :pattern OR lower(a.first_name || ' ' || coalesce(a.last_name, '')) LIKE :pattern
               OR EXISTS (SELECT 1 FROM referral_codes rc WHERE rc.brand_id = a.brand_id AND rc.advocate_id = a.advocate_id AND rc.code_normalized LIKE :pattern))
        ORDER BY a.advocate_id
        LIMIT :limit OFFSET :offset
     )
     SELECT page.*, codes.codes, stats.conversions, stats.revenue, ledger.balance, ledger.pending
       FROM page
       LEFT JOIN LATERAL (SELECT string_agg(rc.code, ', ' ORDER BY rc.created_at, rc.code) AS codes FROM referral_codes rc
                           WHERE rc.brand_id = :brandId AND rc.advocate_id = page.advocate_id) codes ON true
       LEFT JOIN LATERAL (SELECT count(*)::int AS conversions, sum(${inBrandCurrency('c.order_value', 'c.exchange_rate')}) AS revenue FROM conversions c
                           WHERE c.brand_id = :brandId AND c.advocate_id = page.advocate_id
                             AND c.created_at >= :from AND c.created_at < :to AND c.status <> 'pending') stats ON true
       -- Spendable: every entry but the held bucket's (pending and in-review rewards, docs/merchants/reward-lifecycle.md);
       -- pending: the held bucket's.
       LEFT JOIN LATERAL (SELECT sum(l.amount) FILTER (WHERE l.kind NOT IN (${HELD_KINDS_SQL})) AS balance,
                                 sum(l.amount) FILTER (WHERE l.kind IN (${HELD_KINDS_SQL})) AS pending
                            FROM reward_ledger l
                           WHERE l.brand_id = :brandId AND l.advocate_id = page.advocate_id) ledger ON true
      ORDER BY page.advocate_id`,
    {
      brandId,
      exponent: currency.exponent,
      pattern,
      from: query.period.from,
      to: query.period.to,
      limit: query.perPage + 1,
      offset: (query.page - 1) * query.perPage,
    },
  );
  const spendableAndOwed = (unspent: number): Pick<AdvocateRow, 'balance' | 'owed'> => {
    const { payable, owed } = payableOrOwed(unspent);
    return { balance: money.amount(payable), owed: money.amount(owed) };
  };
  const rows = result.rows.map((row) => ({
    advocate_id: Number(row.advocate_id),
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    codes: row.codes ?? '',
    conversions: row.conversions ?? 0,
    revenue: money.amount(money.minor(row.revenue)),
    ...spendableAndOwed(money.minor(row.balance)),
    pending: money.amount(money.minor(row.pending)),
  }));
  return { ...pageOf(rows, query.page, query.perPage), currency: currency.currency };
}

/** Each ledger entry kind as a merchant reads it (docs/merchants/reward-lifecycle.md). */
export const ENTRY_LABELS: Record<LedgerEntryKind, string> = {
  hold: 'Earned, on hold',
  hold_reversal: 'Refund during hold',
  release: 'Hold ended',
  hold_void: 'Voided while held',
  review: 'Passed review',
  credit: 'Approved',
  reversal: 'Refund after approval',
  void: 'Voided',
  payout: 'Paid out',
  redemption: 'Redeemed',
  redemption_return: 'Redemption refunded',
  issued: 'Issued as a discount code',
  credit_debit: 'Taken back from store credit',
};

export interface AdvocateHistoryEntry {
  at: Date;
  kind: LedgerEntryKind;
  /** The kind as a merchant reads it (ENTRY_LABELS). */
  entry: string;
  /** In the brand's currency (every ledger entry is). */
  amount: number;
  /** The status of the reward the entry belongs to, now (in_review, pending, approved, voided); null for redemptions. */
  reward_status: string | null;
  conversion_id: number | null;
  order_id: string | null;
  /** In the order's own currency (order_currency). */
  order_value: number | null;
  order_currency: string | null;
  status: string | null;
}

/** One advocate with their figures as a person reads them (docs/merchants/reward-lifecycle.md "Balance figures", in `currency`: owed, never a negative balance) and ledger entries. */
export interface AdvocateHistory extends Omit<RewardBalance, 'advocate_id' | 'payable'> {
  advocate: Omit<AdvocateRow, 'conversions' | 'revenue' | 'balance' | 'pending' | 'owed'>;
  entries: Page<AdvocateHistoryEntry>;
}

/** The decimals of an order's currency; a code no longer known (old free text) reads as two. */
function orderExponent(code: string | null): number {
  const known = code === null ? null : currencyCode(code);
  return known === null ? 2 : currencyExponent(known);
}

/** One advocate's reward ledger, newest first, each entry with the order it came from. */
export async function advocateHistory(db: Executor, brandId: string, advocateId: number, page: number, perPage: number): Promise<AdvocateHistory> {
  const advocate = await db('advocates').where({ brand_id: brandId, advocate_id: advocateId }).first('advocate_id', 'email', 'first_name', 'last_name');
  if (!advocate) throw new NotFound(`advocate ${advocateId} not found`);
  const codes = await db('referral_codes').where({ brand_id: brandId, advocate_id: advocateId }).orderBy(['created_at', 'code']).pluck('code');
  const { advocate_id: _advocateId, payable: _payable, ...figures } = figuresAsShown(await rewardBalance(db, brandId, advocateId));
  const money = reportAmounts(await reportCurrency(db, brandId));
  const rows = await db('reward_ledger as l')
    .leftJoin('conversions as c', (join) => join.on('c.brand_id', 'l.brand_id').andOn('c.conversion_id', 'l.conversion_id'))
    .leftJoin('rewards as r', (join) => join.on('r.brand_id', 'l.brand_id').andOn('r.reward_id', 'l.reward_id'))
    .where({ 'l.brand_id': brandId, 'l.advocate_id': advocateId })
    .orderBy([{ column: 'l.created_at', order: 'desc' }, { column: 'l.entry_id', order: 'desc' }])
    .limit(perPage + 1)
    .offset((page - 1) * perPage)
    .select('l.created_at', 'l.kind', 'l.amount', 'l.conversion_id', 'r.status as reward_status', 'c.order_id', 'c.order_value', 'c.currency', 'c.status');
  const entries = rows.map((row: Record<string, string | null> & { created_at: Date }) => {
    const kind = row.kind as LedgerEntryKind;
    // The order's value in its own currency, at that currency's exponent.
    const exponent = orderExponent(row.currency ?? null);
    const orderValue = row.order_value === null ? null : amountFromMinor(minorFromDecimal(row.order_value, exponent), exponent);
    return {
      at: new Date(row.created_at),
      kind,
      entry: ENTRY_LABELS[kind] ?? kind,
      amount: money.amount(money.minor(row.amount)),
      reward_status: row.reward_status ?? null,
      conversion_id: row.conversion_id === null ? null : Number(row.conversion_id),
      order_id: row.order_id ?? null,
      order_value: orderValue,
      order_currency: row.currency ?? null,
      status: row.status ?? null,
    };
  });
  return {
    advocate: { advocate_id: Number(advocate.advocate_id), email: advocate.email, first_name: advocate.first_name, last_name: advocate.last_name, codes: codes.join(', ') },
    ...figures,
    entries: pageOf(entries, page, perPage),
  };
}

import type { Executor } from '../db/transaction';
import { NotFound } from '../errors';
import { rewardBalance } from '../ledger/reward-ledger';
import { amountFromCents, centsFromDecimal } from '../money';
import { type Page, containsPattern, pageOf } from './page';
import type { Period } from './period';

export interface AdvocateRow {
  advocate_id: number;
  email: string;
  first_name: string;
  last_name: string | null;
  codes: string;
  /** Paid conversions and their order value within the period. */
  conversions: number;
  revenue: number;
  /** All-time spendable reward balance: approved − paid − redeemed (held rewards not counted). */
  balance: number;
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
}

/**
 * Advocates, oldest first, matching `search` in the email, name or any code; each page's
 * conversion figures are summed for its rows only, over the period.
 */
export async function advocatesReport(db: Executor, brandId: string, query: AdvocatesQuery): Promise<Page<AdvocateRow>> {
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
     SELECT page.*, codes.codes, stats.conversions, stats.revenue, ledger.balance
       FROM page
       LEFT JOIN LATERAL (SELECT string_agg(rc.code, ', ' ORDER BY rc.created_at, rc.code) AS codes FROM referral_codes rc
                           WHERE rc.brand_id = :brandId AND rc.advocate_id = page.advocate_id) codes ON true
       LEFT JOIN LATERAL (SELECT count(*)::int AS conversions, sum(c.order_value) AS revenue FROM conversions c
                           WHERE c.brand_id = :brandId AND c.advocate_id = page.advocate_id
                             AND c.created_at >= :from AND c.created_at < :to AND c.status <> 'pending') stats ON true
       -- Spendable: every entry but the held bucket's (pending and in-review rewards, docs/reward-lifecycle.md).
       LEFT JOIN LATERAL (SELECT sum(l.amount) FILTER (WHERE l.kind NOT IN ('hold', 'hold_reversal', 'release', 'hold_void')) AS balance FROM reward_ledger l
                           WHERE l.brand_id = :brandId AND l.advocate_id = page.advocate_id) ledger ON true
      ORDER BY page.advocate_id`,
    {
      brandId,
      pattern,
      from: query.period.from,
      to: query.period.to,
      limit: query.perPage + 1,
      offset: (query.page - 1) * query.perPage,
    },
  );
  const rows = result.rows.map((row) => ({
    advocate_id: Number(row.advocate_id),
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    codes: row.codes ?? '',
    conversions: row.conversions ?? 0,
    revenue: amountFromCents(centsFromDecimal(row.revenue ?? '0')),
    balance: amountFromCents(centsFromDecimal(row.balance ?? '0')),
  }));
  return pageOf(rows, query.page, query.perPage);
}

export interface AdvocateHistoryEntry {
  at: Date;
  kind: string;
  amount: number;
  conversion_id: number | null;
  order_id: string | null;
  order_value: number | null;
  status: string | null;
}

export interface AdvocateHistory {
  advocate: Omit<AdvocateRow, 'conversions' | 'revenue' | 'balance'>;
  credited: number;
  reversed: number;
  redeemed: number;
  balance: number;
  entries: Page<AdvocateHistoryEntry>;
}

/** One advocate's reward ledger, newest first, each entry with the order it came from. */
export async function advocateHistory(db: Executor, brandId: string, advocateId: number, page: number, perPage: number): Promise<AdvocateHistory> {
  const advocate = await db('advocates').where({ brand_id: brandId, advocate_id: advocateId }).first('advocate_id', 'email', 'first_name', 'last_name');
  if (!advocate) throw new NotFound(`advocate ${advocateId} not found`);
  const codes = await db('referral_codes').where({ brand_id: brandId, advocate_id: advocateId }).orderBy(['created_at', 'code']).pluck('code');
  const balance = await rewardBalance(db, brandId, advocateId);
  const rows = await db('reward_ledger as l')
    .leftJoin('conversions as c', (join) => join.on('c.brand_id', 'l.brand_id').andOn('c.conversion_id', 'l.conversion_id'))
    .where({ 'l.brand_id': brandId, 'l.advocate_id': advocateId })
    .orderBy([{ column: 'l.created_at', order: 'desc' }, { column: 'l.entry_id', order: 'desc' }])
    .limit(perPage + 1)
    .offset((page - 1) * perPage)
    .select('l.created_at', 'l.kind', 'l.amount', 'l.conversion_id', 'c.order_id', 'c.order_value', 'c.status');
  const entries = rows.map((row: Record<string, string | null> & { created_at: Date }) => ({
    at: new Date(row.created_at),
    kind: row.kind as string,
    amount: amountFromCents(centsFromDecimal(row.amount)),
    conversion_id: row.conversion_id === null ? null : Number(row.conversion_id),
    order_id: row.order_id ?? null,
    order_value: row.order_value === null ? null : amountFromCents(centsFromDecimal(row.order_value)),
    status: row.status ?? null,
  }));
  return {
    advocate: { advocate_id: Number(advocate.advocate_id), email: advocate.email, first_name: advocate.first_name, last_name: advocate.last_name, codes: codes.join(', ') },
    credited: balance.credited,
    reversed: balance.reversed,
    redeemed: balance.redeemed,
    balance: balance.balance,
    entries: pageOf(entries, page, perPage),
  };
}

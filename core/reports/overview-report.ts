import type { Knex } from 'knex';
import { amountFromCents, centsFromDecimal } from '../money';
import { type Period, daysOf } from './period';
import { type StoredReport, ensureStored, splitAtCutoff, textArray } from './report-days';

export interface DailyPoint {
  day: string;
  conversions: number;
  revenue: number;
  refunded: number;
}

export interface OverviewReport {
  conversions: number;
  /** Referred revenue: the order value of paid conversions (pending ones are not paid yet). */
  revenue: number;
  refunded: number;
  net_revenue: number;
  refunded_orders: number;
  /** Refunded amount ÷ revenue, in percent with two decimals; 0 with no revenue. */
  refund_rate: number;
  rewards_earned: number;
  rewards_reversed: number;
  rewards_redeemed: number;
  daily: DailyPoint[];
}

interface DayRow {
  day: string;
  conversions: number;
  revenue: string;
  refunded: string;
  refunded_orders: number;
  credits: string;
  reversals: string;
  redemptions: string;
  redemption_returns: string;
}

/**
 * Each UTC day of [from, to) with its figures: paid conversions by the day they were created (their
 * order value, what was refunded of them) and ledger entries by the day they were written. Two
 * index-only scans of the range, grouped by day.
 */
const DAYS_SQL = `WITH c AS (
       SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS conversions,
              sum(order_value) AS revenue, sum(refunded_total) AS refunded, count(*) FILTER (WHERE refunded_total > 0)::int AS refunded_orders
         FROM conversions
        WHERE brand_id = :brandId AND created_at >= :from AND created_at < :to AND status <> 'pending'
        GROUP BY 1
     ), l AS (
       SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
              coalesce(sum(amount) FILTER (WHERE kind = 'credit'), 0) AS credits,
              coalesce(sum(amount) FILTER (WHERE kind = 'reversal'), 0) AS reversals,
              coalesce(sum(amount) FILTER (WHERE kind = 'redemption'), 0) AS redemptions,
              coalesce(sum(amount) FILTER (WHERE kind = 'redemption_return'), 0) AS redemption_returns
         FROM reward_ledger
        WHERE brand_id = :brandId AND created_at >= :from AND created_at < :to
        GROUP BY 1
     )
     SELECT coalesce(c.day, l.day) AS day, coalesce(c.conversions, 0) AS conversions, coalesce(c.revenue, 0) AS revenue,
            coalesce(c.refunded, 0) AS refunded, coalesce(c.refunded_orders, 0) AS refunded_orders,
            coalesce(l.credits, 0) AS credits, coalesce(l.reversals, 0) AS reversals,
            coalesce(l.redemptions, 0) AS redemptions, coalesce(l.redemption_returns, 0) AS redemption_returns
       FROM c FULL JOIN l ON l.day = c.day`;

function daysQuery(db: Knex | Knex.Transaction, brandId: string, range: { from: Date; to: Date }): Knex.Raw {
  return db.raw(DAYS_SQL, { brandId, from: range.from, to: range.to });
}

export const storedDays: StoredReport = {
  doneTable: 'report_days',
  async store(trx, brandId, range, days) {
    await trx.raw(
      `INSERT INTO report_days (brand_id, day, conversions, revenue, refunded, refunded_orders, credits, reversals, redemptions, redemption_returns)
       SELECT :brandId, CAST(d.day AS date), coalesce(r.conversions, 0), coalesce(r.revenue, 0), coalesce(r.refunded, 0), coalesce(r.refunded_orders, 0),
              coalesce(r.credits, 0), coalesce(r.reversals, 0), coalesce(r.redemptions, 0), coalesce(r.redemption_returns, 0)
         FROM unnest(CAST(:days AS text[])) AS d(day) LEFT JOIN (${DAYS_SQL}) r ON r.day = d.day
       ON CONFLICT DO NOTHING`,
      { brandId, days: textArray(days), from: range.from, to: range.to },
    );
  },
};

async function dayRows(db: Knex, brandId: string, period: Period): Promise<DayRow[]> {
  const { closed, live } = splitAtCutoff(period);
  const rows: DayRow[] = [];
  if (closed) {
    if (await ensureStored(db, brandId, closed, storedDays)) {
      rows.push(
        ...(await db('report_days')
          .where({ brand_id: brandId })
          .where('day', '>=', closed.from.toISOString().slice(0, 10))
          .where('day', '<', closed.to.toISOString().slice(0, 10))
          .select(db.raw(`to_char(day, 'YYYY-MM-DD') AS day`), 'conversions', 'revenue', 'refunded', 'refunded_orders', 'credits', 'reversals', 'redemptions', 'redemption_returns')),
      );
    } else {
      rows.push(...(await daysQuery(db, brandId, closed)).rows);
    }
  }
  if (live) rows.push(...(await daysQuery(db, brandId, live)).rows);
  return rows;
}

/**
 * The brand's totals over a period, and the same per UTC day for the chart, summed here in cents.
 * Days that ended more than an hour ago come from the stored report (report_days, computed on first
 * need); the rest of the period is computed live.
 */
export async function overviewReport(db: Knex, brandId: string, period: Period): Promise<OverviewReport> {
  const found = new Map((await dayRows(db, brandId, period)).map((row) => [row.day, row]));
  const cents = (value: string | undefined) => centsFromDecimal(value ?? '0');
  let conversions = 0;
  let revenue = 0;
  let refunded = 0;
  let refundedOrders = 0;
  let credits = 0;
  let reversals = 0;
  let redemptions = 0;
  const daily = daysOf(period).map((day) => {
    const row = found.get(day);
    const point = { conversions: row?.conversions ?? 0, revenue: cents(row?.revenue), refunded: cents(row?.refunded) };
    conversions += point.conversions;
    revenue += point.revenue;
    refunded += point.refunded;
    refundedOrders += row?.refunded_orders ?? 0;
    credits += cents(row?.credits);
    reversals += cents(row?.reversals);
    redemptions += cents(row?.redemptions) + cents(row?.redemption_returns);
    return { day, conversions: point.conversions, revenue: amountFromCents(point.revenue), refunded: amountFromCents(point.refunded) };
  });
  return {
    conversions,
    revenue: amountFromCents(revenue),
    refunded: amountFromCents(refunded),
    net_revenue: amountFromCents(revenue - refunded),
    refunded_orders: refundedOrders,
    refund_rate: revenue === 0 ? 0 : Math.round((refunded * 10_000) / revenue) / 100,
    rewards_earned: amountFromCents(credits),
    rewards_reversed: amountFromCents(-reversals),
    rewards_redeemed: amountFromCents(-redemptions),
    daily,
  };
}

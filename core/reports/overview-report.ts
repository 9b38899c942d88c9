import type { Knex } from 'knex';
import { amountFromCents, centsFromDecimal } from '../money';
import { type Period, daysOf } from './period';
import { GRAINS, type Grain, type Range, type StoredReport, columnBound, ensureStored, splitPeriod, textArray } from './report-days';

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
 * Each UTC bucket (day or hour, by :format) of [from, to) with its figures: paid conversions by when
 * they were created (their order value, what was refunded of them) and ledger entries by when they
 * were written. Two index-only scans of the range, grouped by bucket.
 */
const BUCKETS_SQL = `WITH c AS (
       SELECT to_char(created_at AT TIME ZONE 'UTC', :format) AS bucket, count(*)::int AS conversions,
              sum(order_value) AS revenue, sum(refunded_total) AS refunded, count(*) FILTER (WHERE refunded_total > 0)::int AS refunded_orders
         FROM conversions
        WHERE brand_id = :brandId AND created_at >= :from AND created_at < :to AND status <> 'pending'
        GROUP BY 1
     ), l AS (
       SELECT to_char(created_at AT TIME ZONE 'UTC', :format) AS bucket,
              -- Earned when the reward is created, held or not: a held reward's later release and
              -- approval credit cancel out (docs/reward-lifecycle.md), so each reward counts once.
              coalesce(sum(amount) FILTER (WHERE kind IN ('credit', 'hold', 'release')), 0) AS credits,
              coalesce(sum(amount) FILTER (WHERE kind IN ('reversal', 'hold_reversal')), 0) AS reversals,
              coalesce(sum(amount) FILTER (WHERE kind = 'redemption'), 0) AS redemptions,
              coalesce(sum(amount) FILTER (WHERE kind = 'redemption_return'), 0) AS redemption_returns
         FROM reward_ledger
        WHERE brand_id = :brandId AND created_at >= :from AND created_at < :to
        GROUP BY 1
     )
     SELECT coalesce(c.bucket, l.bucket) AS bucket, coalesce(c.conversions, 0) AS conversions, coalesce(c.revenue, 0) AS revenue,
            coalesce(c.refunded, 0) AS refunded, coalesce(c.refunded_orders, 0) AS refunded_orders,
            coalesce(l.credits, 0) AS credits, coalesce(l.reversals, 0) AS reversals,
            coalesce(l.redemptions, 0) AS redemptions, coalesce(l.redemption_returns, 0) AS redemption_returns
       FROM c FULL JOIN l ON l.bucket = c.bucket`;

const FIGURES = 'conversions, revenue, refunded, refunded_orders, credits, reversals, redemptions, redemption_returns';
const TABLES: Record<Grain, string> = { day: 'report_days', hour: 'report_hours' };

/** Live figures of a range, one row per UTC day. */
async function liveDays(db: Knex, brandId: string, range: Range): Promise<DayRow[]> {
  const result = await db.raw<{ rows: Array<DayRow & { bucket: string }> }>(BUCKETS_SQL, { brandId, from: range.from, to: range.to, format: GRAINS.day.format });
  return result.rows.map((row) => ({ ...row, day: row.bucket }));
}

export const storedFigures: StoredReport = {
  doneTable: (grain) => TABLES[grain],
  async store(trx, brandId, grain, range, buckets) {
    const { column, cast, format } = GRAINS[grain];
    await trx.raw(
      `INSERT INTO ${TABLES[grain]} (brand_id, ${column}, ${FIGURES})
       SELECT :brandId, ${cast('b.bucket')}, coalesce(r.conversions, 0), coalesce(r.revenue, 0), coalesce(r.refunded, 0), coalesce(r.refunded_orders, 0),
              coalesce(r.credits, 0), coalesce(r.reversals, 0), coalesce(r.redemptions, 0), coalesce(r.redemption_returns, 0)
         FROM unnest(CAST(:buckets AS text[])) AS b(bucket) LEFT JOIN (${BUCKETS_SQL}) r ON r.bucket = b.bucket
       ON CONFLICT DO NOTHING`,
      { brandId, buckets: textArray(buckets), from: range.from, to: range.to, format },
    );
    // A stored day makes its hours of no further use.
    if (grain === 'day') await trx('report_hours').where({ brand_id: brandId }).where('hour', '<', range.to).delete();
  },
};

/** Stored figures of a range, one row per stored bucket, labelled with its UTC day. */
async function storedRows(db: Knex, brandId: string, grain: Grain, range: Range): Promise<DayRow[]> {
  const { column } = GRAINS[grain];
  const day = grain === 'day' ? `to_char(day, 'YYYY-MM-DD')` : `to_char(hour AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
  return db(TABLES[grain])
    .where({ brand_id: brandId })
    .where(column, '>=', columnBound(grain, range.from))
    .where(column, '<', columnBound(grain, range.to))
    .select(db.raw(`${day} AS day, ${FIGURES}`));
}

async function dayRows(db: Knex, brandId: string, period: Period): Promise<DayRow[]> {
  const split = splitPeriod(period);
  const rows: DayRow[] = [];
  for (const grain of ['day', 'hour'] as const) {
    const range = grain === 'day' ? split.days : split.hours;
    if (!range) continue;
    if (await ensureStored(db, brandId, grain, range, storedFigures)) rows.push(...(await storedRows(db, brandId, grain, range)));
    else rows.push(...(await liveDays(db, brandId, range)));
  }
  if (split.live) rows.push(...(await liveDays(db, brandId, split.live)));
  return rows;
}

/**
 * The brand's totals over a period, and the same per UTC day for the chart, summed here in cents.
 * Days (and today's hours) that ended more than an hour ago come from the stored report
 * (report_days, report_hours, computed on first need); the last hour or two are computed live.
 */
export async function overviewReport(db: Knex, brandId: string, period: Period): Promise<OverviewReport> {
  const cents = (value: string | undefined) => centsFromDecimal(value ?? '0');
  // A day may come in several rows (its stored hours and its live part): summed in cents.
  const found = new Map<string, { conversions: number; revenue: number; refunded: number; refunded_orders: number; credits: number; reversals: number; redemptions: number }>();
  for (const row of await dayRows(db, brandId, period)) {
    const sum = found.get(row.day) ?? { conversions: 0, revenue: 0, refunded: 0, refunded_orders: 0, credits: 0, reversals: 0, redemptions: 0 };
    sum.conversions += Number(row.conversions);
    sum.revenue += cents(row.revenue);
    sum.refunded += cents(row.refunded);
    sum.refunded_orders += Number(row.refunded_orders);
    sum.credits += cents(row.credits);
    sum.reversals += cents(row.reversals);
    sum.redemptions += cents(row.redemptions) + cents(row.redemption_returns);
    found.set(row.day, sum);
  }
  let conversions = 0;
  let revenue = 0;
  let refunded = 0;
  let refundedOrders = 0;
  let credits = 0;
  let reversals = 0;
  let redemptions = 0;
  const daily = daysOf(period).map((day) => {
    const row = found.get(day);
    const point = { conversions: row?.conversions ?? 0, revenue: row?.revenue ?? 0, refunded: row?.refunded ?? 0 };
    conversions += point.conversions;
    revenue += point.revenue;
    refunded += point.refunded;
    refundedOrders += row?.refunded_orders ?? 0;
    credits += row?.credits ?? 0;
    reversals += row?.reversals ?? 0;
    redemptions += row?.redemptions ?? 0;
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

import type { Knex } from 'knex';
import { type Period, daysOf } from './period';
import { type ReportCurrency, inBrandCurrency, reportAmounts, reportCurrency } from './report-currency';
import { GRAINS, type Grain, type Range, type StoredReport, columnBound, ensureStored, splitPeriod, textArray } from './report-days';

export interface DailyPoint {
  day: string;
  conversions: number;
  revenue: number;
  refunded: number;
}

/** The brand's held rewards right now (pending and in review), net of refunds during the hold. */
export interface HeldRewards {
  rewards: number;
  amount: number;
}

export interface OverviewReport {
  /** Every money figure below is in the brand's currency (orders in another one converted at their rate). */
  currency: string;
  conversions: number;
  /** Referred revenue: the order value of paid conversions (pending ones are not paid yet). */
  revenue: number;
  refunded: number;
  net_revenue: number;
  refunded_orders: number;
  /** Refunded amount ÷ revenue, in percent with two decimals; 0 with no revenue. */
  refund_rate: number;
  /** Rewards created in the period, held or not: each reward once (hold, or credit with no hold). */
  rewards_earned: number;
  /** Taken back by refunds in the period, held or approved. */
  rewards_reversed: number;
  /** Spent by advocate claims in the period, net of their refunds. */
  rewards_redeemed: number;
  /** Became spendable in the period: approved after their hold, or credited at once (the `credit` entries). */
  rewards_approved: number;
  /** Voided in the period, held or approved (fraud review, a manual void). */
  rewards_voided: number;
  /** Paid out to advocates in the period. */
  rewards_paid: number;
  /** Held as of now, whenever earned: not spendable yet (pending their hold, or in review). */
  rewards_held: HeldRewards;
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
  approvals: string;
  voids: string;
  payouts: string;
}

/**
 * Each UTC bucket (day or hour, by :format) of [from, to) with its figures: paid conversions by when
 * they were created (their order value, what was refunded of them) and ledger entries by when they
 * were written. Two index-only scans of the range, grouped by bucket.
 */
const BUCKETS_SQL = `WITH c AS (
       SELECT to_char(created_at AT TIME ZONE 'UTC', :format) AS bucket, count(*)::int AS conversions,
              sum(${inBrandCurrency('order_value', 'exchange_rate')}) AS revenue, sum(${inBrandCurrency('refunded_total', 'exchange_rate')}) AS refunded, count(*) FILTER (WHERE refunded_total > 0)::int AS refunded_orders
         FROM conversions
        WHERE brand_id = :brandId AND created_at >= :from AND created_at < :to AND status <> 'pending'
        GROUP BY 1
     ), l AS (
       SELECT to_char(created_at AT TIME ZONE 'UTC', :format) AS bucket,
              -- Earned when the reward is created, held or not: a held reward's later release and
              -- approval credit cancel out (docs/merchants/reward-lifecycle.md), so each reward counts once.
              coalesce(sum(amount) FILTER (WHERE kind IN ('credit', 'hold', 'release')), 0) AS credits,
              coalesce(sum(amount) FILTER (WHERE kind IN ('reversal', 'hold_reversal')), 0) AS reversals,
              coalesce(sum(amount) FILTER (WHERE kind = 'redemption'), 0) AS redemptions,
              coalesce(sum(amount) FILTER (WHERE kind = 'redemption_return'), 0) AS redemption_returns,
              coalesce(sum(amount) FILTER (WHERE kind = 'credit'), 0) AS approvals,
              coalesce(sum(amount) FILTER (WHERE kind IN ('void', 'hold_void')), 0) AS voids,
              coalesce(sum(amount) FILTER (WHERE kind = 'payout'), 0) AS payouts
         FROM reward_ledger
        WHERE brand_id = :brandId AND created_at >= :from AND created_at < :to
        GROUP BY 1
     )
     SELECT coalesce(c.bucket, l.bucket) AS bucket, coalesce(c.conversions, 0) AS conversions, coalesce(c.revenue, 0) AS revenue,
            coalesce(c.refunded, 0) AS refunded, coalesce(c.refunded_orders, 0) AS refunded_orders,
            coalesce(l.credits, 0) AS credits, coalesce(l.reversals, 0) AS reversals,
            coalesce(l.redemptions, 0) AS redemptions, coalesce(l.redemption_returns, 0) AS redemption_returns,
            coalesce(l.approvals, 0) AS approvals, coalesce(l.voids, 0) AS voids, coalesce(l.payouts, 0) AS payouts
       FROM c FULL JOIN l ON l.bucket = c.bucket`;

const FIGURES = 'conversions, revenue, refunded, refunded_orders, credits, reversals, redemptions, redemption_returns, approvals, voids, payouts';
const TABLES: Record<Grain, string> = { day: 'report_days', hour: 'report_hours' };

/** Live figures of a range, one row per UTC day. */
async function liveDays(db: Knex, brandId: string, exponent: number, range: Range): Promise<DayRow[]> {
  const result = await db.raw<{ rows: Array<DayRow & { bucket: string }> }>(BUCKETS_SQL, { brandId, exponent, from: range.from, to: range.to, format: GRAINS.day.format });
  return result.rows.map((row) => ({ ...row, day: row.bucket }));
}

export const storedFigures: StoredReport = {
  doneTable: (grain) => TABLES[grain],
  async store(trx, brandId, grain, range, buckets) {
    const { column, cast, format } = GRAINS[grain];
    const { exponent } = await reportCurrency(trx, brandId);
    await trx.raw(
      `INSERT INTO ${TABLES[grain]} (brand_id, ${column}, ${FIGURES})
       SELECT :brandId, ${cast('b.bucket')}, coalesce(r.conversions, 0), coalesce(r.revenue, 0), coalesce(r.refunded, 0), coalesce(r.refunded_orders, 0),
              coalesce(r.credits, 0), coalesce(r.reversals, 0), coalesce(r.redemptions, 0), coalesce(r.redemption_returns, 0),
              coalesce(r.approvals, 0), coalesce(r.voids, 0), coalesce(r.payouts, 0)
         FROM unnest(CAST(:buckets AS text[])) AS b(bucket) LEFT JOIN (${BUCKETS_SQL}) r ON r.bucket = b.bucket
       ON CONFLICT DO NOTHING`,
      { brandId, exponent, buckets: textArray(buckets), from: range.from, to: range.to, format },
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

async function dayRows(db: Knex, brandId: string, exponent: number, period: Period): Promise<DayRow[]> {
  const split = splitPeriod(period);
  const rows: DayRow[] = [];
  for (const grain of ['day', 'hour'] as const) {
    const range = grain === 'day' ? split.days : split.hours;
    if (!range) continue;
    if (await ensureStored(db, brandId, grain, range, storedFigures)) rows.push(...(await storedRows(db, brandId, grain, range)));
    else rows.push(...(await liveDays(db, brandId, exponent, range)));
  }
  if (split.live) rows.push(...(await liveDays(db, brandId, exponent, split.live)));
  return rows;
}

/**
 * The brand's held rewards as of now: its pending and in-review rewards' amounts (an index-only
 * scan of the held ones) less what refunds took off them during the hold (the hold_reversal
 * entries written since the oldest of them, each checked against its reward's status). Bounded by
 * how many rewards are held, not by the ledger's length. Equals the sum of the held kinds
 * (docs/merchants/reward-lifecycle.md): a held reward has its hold and hold reversals and nothing else yet.
 */
async function heldRewards(db: Knex, brandId: string, money: ReturnType<typeof reportAmounts>): Promise<HeldRewards> {
  const result = await db.raw<{ rows: Array<{ rewards: number; amount: string | null; reversed: string | null }> }>(
    `WITH held AS (
       SELECT count(*)::int AS rewards, sum(amount) AS amount, min(created_at) AS since
         FROM rewards WHERE brand_id = :brandId AND status IN ('pending', 'in_review')
     )
     SELECT held.rewards, held.amount,
            (SELECT sum(l.amount) FROM reward_ledger l
               JOIN rewards r ON r.brand_id = l.brand_id AND r.reward_id = l.reward_id
              WHERE l.brand_id = :brandId AND l.kind = 'hold_reversal' AND l.created_at >= held.since
                AND r.status IN ('pending', 'in_review')) AS reversed
       FROM held`,
    { brandId },
  );
  const row = result.rows[0];
  return { rewards: row?.rewards ?? 0, amount: money.amount(money.minor(row?.amount) + money.minor(row?.reversed)) };
}

interface DaySum {
  conversions: number;
  revenue: number;
  refunded: number;
  refunded_orders: number;
  credits: number;
  reversals: number;
  redemptions: number;
  approvals: number;
  voids: number;
  payouts: number;
}

const ZERO_DAY: DaySum = { conversions: 0, revenue: 0, refunded: 0, refunded_orders: 0, credits: 0, reversals: 0, redemptions: 0, approvals: 0, voids: 0, payouts: 0 };

/**
 * The brand's totals over a period, and the same per UTC day for the chart, summed here in minor
 * units of the brand's currency. Days (and today's hours) that ended more than an hour ago come
 * from the stored report (report_days, report_hours, computed on first need); the last hour or two
 * are computed live. Held rewards are as of now.
 */
export async function overviewReport(db: Knex, brandId: string, period: Period): Promise<OverviewReport> {
  const currency: ReportCurrency = await reportCurrency(db, brandId);
  const money = reportAmounts(currency);
  // A day may come in several rows (its stored hours and its live part): summed in minor units.
  const found = new Map<string, DaySum>();
  for (const row of await dayRows(db, brandId, currency.exponent, period)) {
    const sum = found.get(row.day) ?? { ...ZERO_DAY };
    sum.conversions += Number(row.conversions);
    sum.revenue += money.minor(row.revenue);
    sum.refunded += money.minor(row.refunded);
    sum.refunded_orders += Number(row.refunded_orders);
    sum.credits += money.minor(row.credits);
    sum.reversals += money.minor(row.reversals);
    sum.redemptions += money.minor(row.redemptions) + money.minor(row.redemption_returns);
    sum.approvals += money.minor(row.approvals);
    sum.voids += money.minor(row.voids);
    sum.payouts += money.minor(row.payouts);
    found.set(row.day, sum);
  }
  const total: DaySum = { ...ZERO_DAY };
  const daily = daysOf(period).map((day) => {
    const row = found.get(day) ?? ZERO_DAY;
    for (const key of Object.keys(total) as Array<keyof DaySum>) total[key] += row[key];
    return { day, conversions: row.conversions, revenue: money.amount(row.revenue), refunded: money.amount(row.refunded) };
  });
  return {
    currency: currency.currency,
    conversions: total.conversions,
    revenue: money.amount(total.revenue),
    refunded: money.amount(total.refunded),
    net_revenue: money.amount(total.revenue - total.refunded),
    refunded_orders: total.refunded_orders,
    refund_rate: total.revenue === 0 ? 0 : Math.round((total.refunded * 10_000) / total.revenue) / 100,
    rewards_earned: money.amount(total.credits),
    rewards_reversed: money.amount(-total.reversals),
    rewards_redeemed: money.amount(-total.redemptions),
    rewards_approved: money.amount(total.approvals),
    rewards_voided: money.amount(-total.voids),
    rewards_paid: money.amount(-total.payouts),
    rewards_held: await heldRewards(db, brandId, money),
    daily,
  };
}

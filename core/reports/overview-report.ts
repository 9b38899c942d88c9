import type { Executor } from '../db/transaction';
import { amountFromCents, centsFromDecimal } from '../money';
import { type Period, daysOf } from './period';

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

/**
 * The brand's totals over a period, and the same per UTC day for the chart. One index-only scan of
 * the period's conversions (grouped by day, summed here in cents) and one of its ledger entries.
 */
export async function overviewReport(db: Executor, brandId: string, period: Period): Promise<OverviewReport> {
  const byDay = await db.raw<{ rows: Array<{ day: string; conversions: number; revenue: string; refunded: string; refunded_orders: number }> }>(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS conversions,
            sum(order_value) AS revenue, sum(refunded_total) AS refunded,
            count(*) FILTER (WHERE refunded_total > 0)::int AS refunded_orders
       FROM conversions
      WHERE brand_id = ? AND created_at >= ? AND created_at < ? AND status <> 'pending'
      GROUP BY 1`,
    [brandId, period.from, period.to],
  );
  const ledger = await db.raw<{ rows: Array<{ kind: string; total: string }> }>(
    `SELECT kind, sum(amount) AS total FROM reward_ledger
      WHERE brand_id = ? AND created_at >= ? AND created_at < ? GROUP BY kind`,
    [brandId, period.from, period.to],
  );
  const found = new Map(byDay.rows.map((row) => [row.day, row]));
  let conversions = 0;
  let revenue = 0;
  let refunded = 0;
  let refundedOrders = 0;
  const daily = daysOf(period).map((day) => {
    const row = found.get(day);
    const point = { day, conversions: row?.conversions ?? 0, revenue: centsFromDecimal(row?.revenue ?? '0'), refunded: centsFromDecimal(row?.refunded ?? '0') };
    conversions += point.conversions;
    revenue += point.revenue;
    refunded += point.refunded;
    refundedOrders += row?.refunded_orders ?? 0;
    return { day, conversions: point.conversions, revenue: amountFromCents(point.revenue), refunded: amountFromCents(point.refunded) };
  });
  const kind = (name: string) => centsFromDecimal(ledger.rows.find((row) => row.kind === name)?.total ?? '0');
  return {
    conversions,
    revenue: amountFromCents(revenue),
    refunded: amountFromCents(refunded),
    net_revenue: amountFromCents(revenue - refunded),
    refunded_orders: refundedOrders,
    refund_rate: revenue === 0 ? 0 : Math.round((refunded * 10_000) / revenue) / 100,
    rewards_earned: amountFromCents(kind('credit')),
    rewards_reversed: amountFromCents(-kind('reversal')),
    rewards_redeemed: amountFromCents(-kind('redemption') - kind('redemption_return')),
    daily,
  };
}

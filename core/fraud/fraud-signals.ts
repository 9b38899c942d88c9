import type { Knex } from 'knex';
import { prepared } from '../db/prepared-statement';
import { type FraudSettings, type FraudSignals, type ScreenedOrder, activeLimit } from './fraud-rules';

/**
 * Everything the rules need from the database, in one round trip. The advocate's own identity is
 * what their own orders and claims (by their email) carried: customer ids, visitor ids, shopper
 * IPs, and the IPs of visits from those visitor ids within the brand's IP window. The velocity
 * counts stop at the limit (they only decide whether it is reached).
 */
const SIGNALS_SQL = `
WITH advocate AS (
  SELECT email_normalized FROM advocates WHERE brand_id = :brand AND advocate_id = :advocate
),
own_orders AS (
  SELECT c.visitor_id, c.customer_id, c.customer_ip, c.created_at
  FROM conversions c JOIN advocate a ON c.brand_id = :brand AND c.email_normalized = a.email_normalized
),
own_visitors AS (
  SELECT visitor_id FROM own_orders WHERE visitor_id IS NOT NULL
  UNION
  SELECT cl.visitor_id FROM claims cl JOIN advocate a ON cl.brand_id = :brand AND cl.email_normalized = a.email_normalized
  WHERE cl.visitor_id IS NOT NULL
)
SELECT
  (SELECT email_normalized FROM advocate) AS advocate_email,
  (CAST(:customer AS text) IS NOT NULL AND EXISTS (SELECT 1 FROM own_orders WHERE customer_id = CAST(:customer AS text))) AS same_customer,
  (CAST(:visitor AS text) IS NOT NULL AND EXISTS (SELECT 1 FROM own_visitors WHERE lower(visitor_id) = lower(CAST(:visitor AS text)))) AS same_visitor,
  (CAST(:ownIp AS inet) IS NOT NULL AND (
    EXISTS (
      SELECT 1 FROM own_orders
      WHERE customer_ip = CAST(:ownIp AS inet) AND created_at >= now() - make_interval(days => CAST(:window AS integer))
    )
    OR EXISTS (
      SELECT 1 FROM own_visitors o JOIN visits v
        ON v.brand_id = :brand
       AND v.visitor_id = (CASE WHEN o.visitor_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN CAST(o.visitor_id AS uuid) END)
      WHERE v.ip_address = CAST(:ownIp AS inet) AND v.created_at >= now() - make_interval(days => CAST(:window AS integer))
    )
  )) AS same_ip,
  (SELECT count(*) FROM (
    SELECT 1 FROM conversions
    WHERE brand_id = :brand AND advocate_id = :advocate AND created_at >= now() - interval '1 hour'
    LIMIT CAST(:advocateLimit AS integer)
  ) AS recent) AS advocate_last_hour,
  (SELECT count(*) FROM (
    SELECT 1 FROM conversions
    WHERE brand_id = :brand AND CAST(:ip AS inet) IS NOT NULL AND customer_ip = CAST(:ip AS inet) AND created_at >= now() - interval '1 day'
    LIMIT CAST(:ipLimit AS integer)
  ) AS recent) AS ip_last_day
`;

interface SignalsRow {
  advocate_email: string | null;
  same_customer: boolean;
  same_visitor: boolean;
  same_ip: boolean;
  advocate_last_hour: string | number;
  ip_last_day: string | number;
}

/** The signals for one order of `advocateId`, before its conversion is written (same transaction). */
export async function fraudSignals(trx: Knex.Transaction, brandId: string, brand: FraudSettings, advocateId: number, order: ScreenedOrder): Promise<FraudSignals> {
  const limitOf = (limit: number | null) => (brand.fraud_velocity ? (activeLimit(limit) ?? 0) : 0);
  const { rows } = await prepared(
    trx,
    trx.raw(SIGNALS_SQL, {
      brand: brandId,
      advocate: advocateId,
      customer: brand.fraud_self_referral ? order.customer_id : null,
      visitor: brand.fraud_self_referral ? order.visitor_id : null,
      ip: order.ip,
      ownIp: brand.fraud_self_referral ? order.ip : null,
      window: brand.fraud_ip_window_days,
      advocateLimit: limitOf(brand.fraud_max_per_advocate_hour),
      ipLimit: limitOf(brand.fraud_max_per_ip_day),
    }),
  );
  const row = (rows as SignalsRow[])[0]!;
  return {
    advocate_email: row.advocate_email,
    same_customer: row.same_customer === true,
    same_visitor: row.same_visitor === true,
    same_ip: row.same_ip === true,
    advocate_last_hour: Number(row.advocate_last_hour),
    ip_last_day: Number(row.ip_last_day),
  };
}

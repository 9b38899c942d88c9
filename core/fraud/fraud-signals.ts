import type { Knex } from 'knex';
import { statementOnce } from '../db/prepared-statement';
import { type FraudSettings, type FraudSignals, type ScreenedOrder, activeLimit } from './fraud-rules';

/**
 * Everything the rules need from the database, for every order of a batch in one round trip (one
 * row per order, by its item number). The advocate's own identity is what their own orders and
 * claims (by their email) carried: customer ids, visitor ids, shopper IPs, and the IPs of visits
 * from those visitor ids within the brand's IP window. The velocity counts stop at the limit
 * (they only decide whether it is reached).
 */
const SIGNALS_SQL = `
SELECT o.item_no, s.*
FROM jsonb_to_recordset(CAST(:orders AS jsonb))
  AS o(item_no integer, brand uuid, advocate bigint, customer text, visitor text, ip inet, own_ip inet, ip_window integer, advocate_limit integer, ip_limit integer)
CROSS JOIN LATERAL (
WITH advocate AS (
  SELECT email_normalized FROM advocates WHERE brand_id = o.brand AND advocate_id = o.advocate
),
own_orders AS (
  SELECT c.visitor_id, c.customer_id, c.customer_ip, c.created_at
  FROM conversions c JOIN advocate a ON c.brand_id = o.brand AND c.email_normalized = a.email_normalized
),
own_visitors AS (
  SELECT visitor_id FROM own_orders WHERE visitor_id IS NOT NULL
  UNION
  SELECT cl.visitor_id FROM claims cl JOIN advocate a ON cl.brand_id = o.brand AND cl.email_normalized = a.email_normalized
  WHERE cl.visitor_id IS NOT NULL
)
SELECT
  (SELECT email_normalized FROM advocate) AS advocate_email,
  (o.customer IS NOT NULL AND EXISTS (SELECT 1 FROM own_orders WHERE customer_id = o.customer)) AS same_customer,
  (o.visitor IS NOT NULL AND EXISTS (SELECT 1 FROM own_visitors WHERE lower(visitor_id) = lower(o.visitor))) AS same_visitor,
  (o.own_ip IS NOT NULL AND (
    EXISTS (
      SELECT 1 FROM own_orders
      WHERE customer_ip = o.own_ip AND created_at >= now() - make_interval(days => o.ip_window)
    )
    OR EXISTS (
      SELECT 1 FROM own_visitors v0 JOIN visits v
        ON v.brand_id = o.brand
       AND v.visitor_id = (CASE WHEN v0.visitor_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN CAST(v0.visitor_id AS uuid) END)
      WHERE v.ip_address = o.own_ip AND v.created_at >= now() - make_interval(days => o.ip_window)
    )
  )) AS same_ip,
  (SELECT count(*) FROM (
    SELECT 1 FROM conversions
    WHERE brand_id = o.brand AND advocate_id = o.advocate AND created_at >= now() - interval '1 hour'
    LIMIT o.advocate_limit
  ) AS recent) AS advocate_last_hour,
  (SELECT count(*) FROM (
    SELECT 1 FROM conversions
    WHERE brand_id = o.brand AND o.ip IS NOT NULL AND customer_ip = o.ip AND created_at >= now() - interval '1 day'
    LIMIT o.ip_limit
  ) AS recent) AS ip_last_day
) AS s
`;

const signalsStatement = statementOnce(1, (db, [orders]) => db.raw(SIGNALS_SQL, { orders: orders! }));

interface SignalsRow {
  item_no: number;
  advocate_email: string | null;
  same_customer: boolean;
  same_visitor: boolean;
  same_ip: boolean;
  advocate_last_hour: string | number;
  ip_last_day: string | number;
}

/** One order to screen: the brand it belongs to (with its rules), its advocate and what it says about the shopper. */
export interface SignalsRequest {
  brandId: string;
  brand: FraudSettings;
  advocateId: number;
  order: ScreenedOrder;
}

/** The signals for each order of `advocateId`, before its conversion is written (same transaction), in the requests' order. */
export async function fraudSignals(trx: Knex.Transaction, requests: SignalsRequest[]): Promise<FraudSignals[]> {
  if (requests.length === 0) return [];
  const limitOf = (brand: FraudSettings, limit: number | null) => (brand.fraud_velocity ? (activeLimit(limit) ?? 0) : 0);
  // One constant text whatever the batch's size, so it is prepared once per connection; a JSON
  // recordset rather than unnest(arrays): the planner estimates both alike for one order and for
  // many, so it settles on one generic plan instead of planning every execution anew.
  const orders = requests.map((r, index) => ({
    item_no: index,
    brand: r.brandId,
    advocate: r.advocateId,
    customer: r.brand.fraud_self_referral ? r.order.customer_id : null,
    visitor: r.brand.fraud_self_referral ? r.order.visitor_id : null,
    ip: r.order.ip,
    own_ip: r.brand.fraud_self_referral ? r.order.ip : null,
    ip_window: r.brand.fraud_ip_window_days,
    advocate_limit: limitOf(r.brand, r.brand.fraud_max_per_advocate_hour),
    ip_limit: limitOf(r.brand, r.brand.fraud_max_per_ip_day),
  }));
  const { rows } = await signalsStatement(trx, [JSON.stringify(orders)]);
  const byItem = new Map((rows as SignalsRow[]).map((row) => [Number(row.item_no), row]));
  return requests.map((_, index) => {
    const row = byItem.get(index)!;
    return {
      advocate_email: row.advocate_email,
      same_customer: row.same_customer === true,
      same_visitor: row.same_visitor === true,
      same_ip: row.same_ip === true,
      advocate_last_hour: Number(row.advocate_last_hour),
      ip_last_day: Number(row.ip_last_day),
    };
  });
}

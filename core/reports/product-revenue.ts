import type { Knex } from 'knex';
import { amountFromCents, centsFromDecimal } from '../money';
import type { Period } from './period';
import { type StoredReport, ensureStored, splitAtCutoff, textArray } from './report-days';

export interface ProductRevenueRow {
  /** The SKU when the lines had one, else the product name as stored. */
  product: string;
  sku: string | null;
  /** Every name the lines of this SKU were stored under (titles change, platforms differ). */
  names: string[];
  orders: number;
  quantity: number;
  revenue: number;
}

/** The report shows the products that sold most; the rest are summed into none. */
export const MAX_PRODUCTS = 500;

/**
 * The product lines of [from, to)'s paid conversions by UTC day and product: lines with a SKU group
 * by SKU (their names are its aliases), lines without by name. A long range (stored days, computed
 * once) hashes the lines table; today's few orders look their lines up by key one by one (OFFSET 0
 * keeps the planner from turning that back into a scan of every line of the brand).
 */
function dayProductsSql(range: 'long' | 'short'): string {
  const lines =
    range === 'long'
      ? 'JOIN conversion_products p ON p.brand_id = c.brand_id AND p.conversion_id = c.conversion_id'
      : `CROSS JOIN LATERAL (SELECT l.name, l.sku, l.quantity, l.line_total, l.conversion_id FROM conversion_products l
                              WHERE l.brand_id = c.brand_id AND l.conversion_id = c.conversion_id OFFSET 0) p`;
  return `
  SELECT to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
         CASE WHEN p.sku IS NULL THEN 'name:' || p.name ELSE 'sku:' || p.sku END AS product_key,
         p.sku, array_agg(DISTINCT p.name) AS names, count(DISTINCT p.conversion_id)::int AS orders,
         sum(p.quantity) AS quantity, sum(p.line_total) AS revenue
    FROM conversions c
    ${lines}
   WHERE c.brand_id = :brandId AND c.created_at >= :from AND c.created_at < :to AND c.status <> 'pending'
   GROUP BY 1, 2, 3`;
}

export const storedProducts: StoredReport = {
  doneTable: 'report_day_products_done',
  async store(trx, brandId, range, days) {
    const bindings = { brandId, from: range.from, to: range.to, days: textArray(days) };
    await trx.raw(
      `INSERT INTO report_day_products (brand_id, day, product_key, sku, names, orders, quantity, revenue)
       SELECT :brandId, CAST(day AS date), product_key, sku, names, orders, quantity, revenue
         FROM (${dayProductsSql('long')}) r WHERE day = ANY (CAST(:days AS text[]))
       ON CONFLICT DO NOTHING`,
      bindings,
    );
    await trx.raw(
      `INSERT INTO report_day_products_done (brand_id, day) SELECT :brandId, CAST(day AS date) FROM unnest(CAST(:days AS text[])) AS day
       ON CONFLICT DO NOTHING`,
      bindings,
    );
  },
};

/**
 * Referred revenue by product over a period, most revenue first. Days that ended more than an
 * hour ago come from the stored report (report_day_products, computed on first need), the rest live.
 */
export async function productRevenue(db: Knex, brandId: string, period: Period): Promise<ProductRevenueRow[]> {
  const { closed, live } = splitAtCutoff(period);
  const parts: string[] = [];
  const bindings: Record<string, unknown> = { brandId, limit: MAX_PRODUCTS };
  if (closed) {
    bindings.closedFrom = closed.from.toISOString().slice(0, 10);
    bindings.closedTo = closed.to.toISOString().slice(0, 10);
    if (await ensureStored(db, brandId, closed, storedProducts)) {
      parts.push(`SELECT product_key, sku, names, orders, quantity, revenue FROM report_day_products
                   WHERE brand_id = :brandId AND day >= CAST(:closedFrom AS date) AND day < CAST(:closedTo AS date)`);
    } else {
      parts.push(`SELECT product_key, sku, names, orders, quantity, revenue FROM (${dayProductsSql('long').replace(':from', ':closedFromAt').replace(':to', ':closedToAt')}) closed_days`);
      bindings.closedFromAt = closed.from;
      bindings.closedToAt = closed.to;
    }
  }
  if (live) {
    parts.push(`SELECT product_key, sku, names, orders, quantity, revenue FROM (${dayProductsSql('short')}) live_days`);
    bindings.from = live.from;
    bindings.to = live.to;
  }
  if (parts.length === 0) return [];
  const result = await db.raw<{ rows: Array<{ product_key: string; sku: string | null; names: string[]; orders: number; quantity: string; revenue: string }> }>(
    `WITH r AS (${parts.join(' UNION ALL ')}),
          n AS (SELECT product_key, array_agg(DISTINCT name ORDER BY name) AS names FROM r, unnest(r.names) AS name GROUP BY product_key)
     SELECT r.product_key, max(r.sku) AS sku, n.names, sum(r.orders)::int AS orders, sum(r.quantity) AS quantity, sum(r.revenue) AS revenue
       FROM r JOIN n USING (product_key)
      GROUP BY r.product_key, n.names
      ORDER BY sum(r.revenue) DESC, r.product_key
      LIMIT :limit`,
    bindings,
  );
  return result.rows.map((row) => ({
    product: row.sku ?? row.product_key.slice('name:'.length),
    sku: row.sku,
    names: row.names,
    orders: row.orders,
    quantity: Number(row.quantity),
    revenue: amountFromCents(centsFromDecimal(row.revenue)),
  }));
}

import type { Knex } from 'knex';
import type { Period } from './period';
import { inBrandCurrency, reportAmounts, reportCurrency } from './report-currency';
import { GRAINS, type Grain, type Range, type StoredReport, columnBound, ensureStored, splitPeriod, textArray } from './report-days';

export interface ProductRevenueRow {
  /** The SKU when the lines had one, else the product name as stored. */
  product: string;
  sku: string | null;
  /** Every name the lines of this SKU were stored under (titles change, platforms differ). */
  names: string[];
  orders: number;
  quantity: number;
  /** In the brand's currency: each line at its order's exchange rate. */
  revenue: number;
}

export interface ProductRevenue {
  /** The brand's currency, every revenue figure's. */
  currency: string;
  rows: ProductRevenueRow[];
}

/** The report shows the products that sold most; the rest are summed into none. */
export const MAX_PRODUCTS = 500;

/**
 * The product lines of a range's paid conversions by UTC bucket (day or hour: :<p>Format) and
 * product: lines with a SKU group by SKU (their names are its aliases), lines without by name.
 * Line totals are in the brand's currency (:exponent; a line of an order in another currency at the
 * order's exchange rate, rounded per line).
 * Days hash the lines table; an hour's or today's few orders look their lines up by key one by one
 * (OFFSET 0 keeps the planner from turning that back into a scan of every line of the brand).
 * Parameters are named with the prefix `p`, so one query can hold several ranges.
 */
function bucketProductsSql(lookup: 'hash' | 'by key', p: string): string {
  const lines =
    lookup === 'hash'
      ? 'JOIN conversion_products p ON p.brand_id = c.brand_id AND p.conversion_id = c.conversion_id'
      : `CROSS JOIN LATERAL (SELECT l.name, l.sku, l.quantity, l.line_total, l.conversion_id FROM conversion_products l
                              WHERE l.brand_id = c.brand_id AND l.conversion_id = c.conversion_id OFFSET 0) p`;
  return `
  SELECT to_char(c.created_at AT TIME ZONE 'UTC', :${p}Format) AS bucket,
         CASE WHEN p.sku IS NULL THEN 'name:' || p.name ELSE 'sku:' || p.sku END AS product_key,
         p.sku, array_agg(DISTINCT p.name) AS names, count(DISTINCT p.conversion_id)::int AS orders,
         sum(p.quantity) AS quantity, sum(${inBrandCurrency('p.line_total', 'c.exchange_rate')}) AS revenue
    FROM conversions c
    ${lines}
   WHERE c.brand_id = :brandId AND c.created_at >= :${p}From AND c.created_at < :${p}To AND c.status <> 'pending'
   GROUP BY 1, 2, 3`;
}

const rangeBindings = (p: string, grain: Grain, range: Range) => ({ [`${p}From`]: range.from, [`${p}To`]: range.to, [`${p}Format`]: GRAINS[grain].format });
const PRODUCT_TABLES: Record<Grain, { rows: string; done: string }> = {
  day: { rows: 'report_day_products', done: 'report_day_products_done' },
  hour: { rows: 'report_hour_products', done: 'report_hour_products_done' },
};
const PRODUCT_COLUMNS = 'product_key, sku, names, orders, quantity, revenue';

export const storedProducts: StoredReport = {
  doneTable: (grain) => PRODUCT_TABLES[grain].done,
  async store(trx, brandId, grain, range, buckets) {
    const { column, cast } = GRAINS[grain];
    const { exponent } = await reportCurrency(trx, brandId);
    const bindings = { brandId, exponent, buckets: textArray(buckets), ...rangeBindings('s', grain, range) };
    await trx.raw(
      `INSERT INTO ${PRODUCT_TABLES[grain].rows} (brand_id, ${column}, ${PRODUCT_COLUMNS})
       SELECT :brandId, ${cast('bucket')}, ${PRODUCT_COLUMNS}
         FROM (${bucketProductsSql(grain === 'day' ? 'hash' : 'by key', 's')}) r WHERE bucket = ANY (CAST(:buckets AS text[]))
       ON CONFLICT DO NOTHING`,
      bindings,
    );
    await trx.raw(
      `INSERT INTO ${PRODUCT_TABLES[grain].done} (brand_id, ${column}) SELECT :brandId, ${cast('bucket')} FROM unnest(CAST(:buckets AS text[])) AS bucket
       ON CONFLICT DO NOTHING`,
      bindings,
    );
    if (grain === 'day') {
      await trx('report_hour_products').where({ brand_id: brandId }).where('hour', '<', range.to).delete();
      await trx('report_hour_products_done').where({ brand_id: brandId }).where('hour', '<', range.to).delete();
    }
  },
};

/**
 * Referred revenue by product over a period, most revenue first. Days (and today's hours) that
 * ended more than an hour ago come from the stored report (computed on first need), the rest live.
 */
export async function productRevenue(db: Knex, brandId: string, period: Period): Promise<ProductRevenue> {
  const currency = await reportCurrency(db, brandId);
  const money = reportAmounts(currency);
  const split = splitPeriod(period);
  const parts: string[] = [];
  let bindings: Record<string, unknown> = { brandId, exponent: currency.exponent, limit: MAX_PRODUCTS };
  for (const grain of ['day', 'hour'] as const) {
    const range = grain === 'day' ? split.days : split.hours;
    if (!range) continue;
    const p = grain;
    bindings = { ...bindings, ...rangeBindings(p, grain, range), [`${p}Lo`]: columnBound(grain, range.from), [`${p}Hi`]: columnBound(grain, range.to) };
    if (await ensureStored(db, brandId, grain, range, storedProducts)) {
      const { column } = GRAINS[grain];
      parts.push(`SELECT ${PRODUCT_COLUMNS} FROM ${PRODUCT_TABLES[grain].rows} WHERE brand_id = :brandId AND ${column} >= :${p}Lo AND ${column} < :${p}Hi`);
    } else {
      parts.push(`SELECT ${PRODUCT_COLUMNS} FROM (${bucketProductsSql(grain === 'day' ? 'hash' : 'by key', p)}) ${p}_live`);
    }
  }
  if (split.live) {
    bindings = { ...bindings, ...rangeBindings('live', 'day', split.live) };
    parts.push(`SELECT ${PRODUCT_COLUMNS} FROM (${bucketProductsSql('by key', 'live')}) live`);
  }
  if (parts.length === 0) return { currency: currency.currency, rows: [] };
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
  const rows = result.rows.map((row) => ({
    product: row.sku ?? row.product_key.slice('name:'.length),
    sku: row.sku,
    names: row.names,
    orders: row.orders,
    quantity: Number(row.quantity),
    revenue: money.amount(money.minor(row.revenue)),
  }));
  return { currency: currency.currency, rows };
}

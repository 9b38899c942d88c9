import type { Executor } from '../db/transaction';
import { amountFromCents, centsFromDecimal } from '../money';
import type { Period } from './period';

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
 * Referred revenue by product over a period, from the paid conversions' product lines: lines with
 * a SKU group by SKU (their names are its aliases), lines without by name. Most revenue first.
 */
export async function productRevenue(db: Executor, brandId: string, period: Period): Promise<ProductRevenueRow[]> {
  const result = await db.raw<{ rows: Array<{ sku: string | null; product: string; names: string[]; orders: number; quantity: string; revenue: string }> }>(
    `SELECT p.sku, coalesce(p.sku, min(p.name)) AS product, array_agg(DISTINCT p.name ORDER BY p.name) AS names,
            count(DISTINCT p.conversion_id)::int AS orders, sum(p.quantity) AS quantity, sum(p.line_total) AS revenue
       FROM conversions c
       JOIN conversion_products p ON p.brand_id = c.brand_id AND p.conversion_id = c.conversion_id
      WHERE c.brand_id = :brandId AND c.created_at >= :from AND c.created_at < :to AND c.status <> 'pending'
      GROUP BY p.sku, CASE WHEN p.sku IS NULL THEN p.name END
      ORDER BY sum(p.line_total) DESC, product
      LIMIT :limit`,
    { brandId, from: period.from, to: period.to, limit: MAX_PRODUCTS },
  );
  return result.rows.map((row) => ({
    product: row.product,
    sku: row.sku,
    names: row.names,
    orders: row.orders,
    quantity: Number(row.quantity),
    revenue: amountFromCents(centsFromDecimal(row.revenue)),
  }));
}

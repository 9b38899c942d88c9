import type { Executor } from '../db/transaction';
import { currencyCode, currencyExponent } from '../currency';
import { amountFromMinor, minorFromDecimal } from '../money';
import { type Page, pageOf } from './page';
import type { Period } from './period';
import { reportCurrency } from './report-currency';

export const ACTIVITY_KINDS = ['visit', 'claim', 'conversion', 'refund'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

export interface ActivityItem {
  kind: ActivityKind;
  id: number;
  at: Date;
  code: string | null;
  email: string | null;
  /** Claim: its discount; conversion: its order value; refund: the amount refunded. */
  amount: number | null;
  /** The amount's currency: a conversion's and its refunds' own (the order's), a claim's the brand's; null with no amount. */
  currency: string | null;
  /** Claim and conversion status, refund status after it, visit share channel. */
  detail: string | null;
  order_id: string | null;
}

export interface ActivityQuery {
  period: Period;
  kinds: readonly ActivityKind[];
  page: number;
  perPage: number;
}

// Each kind's newest rows of the period; the feed is their merge. Every part reads its table's
// (brand_id, created_at) index backwards and stops after the rows the page can need.
const PARTS: Record<ActivityKind, string> = {
  visit: `SELECT 'visit' AS kind, visit_id AS id, created_at, coalesce(clicked_code, code_normalized) AS code, CAST(NULL AS text) AS email,
                 CAST(NULL AS numeric) AS amount, CAST(NULL AS text) AS currency, share_channel AS detail, CAST(NULL AS text) AS order_id
            FROM visits WHERE brand_id = :brandId AND created_at >= :from AND created_at < :to
           ORDER BY created_at DESC, visit_id DESC LIMIT :limit`,
  claim: `SELECT 'claim' AS kind, claim_id AS id, created_at, referral_code AS code, email, discount_applied AS amount, CAST(NULL AS text) AS currency, status AS detail, order_id
            FROM claims WHERE brand_id = :brandId AND created_at >= :from AND created_at < :to
           ORDER BY created_at DESC, claim_id DESC LIMIT :limit`,
  conversion: `SELECT 'conversion' AS kind, conversion_id AS id, created_at, referral_code AS code, email, order_value AS amount, currency, status AS detail, order_id
                 FROM conversions WHERE brand_id = :brandId AND created_at >= :from AND created_at < :to
                ORDER BY created_at DESC LIMIT :limit`,
  refund: `SELECT 'refund' AS kind, r.refund_pk AS id, r.created_at, coalesce(r.referral_code, c.referral_code) AS code, c.email, r.amount, c.currency, r.status_after AS detail, c.order_id
             FROM refunds r LEFT JOIN conversions c ON c.brand_id = r.brand_id AND c.conversion_id = r.conversion_id
            WHERE r.brand_id = :brandId AND r.created_at >= :from AND r.created_at < :to
            ORDER BY r.created_at DESC, r.refund_pk DESC LIMIT :limit`,
};

/** Visits, claims, conversions and refunds of the period, newest first, of the kinds asked for. */
export async function activityFeed(db: Executor, brandId: string, query: ActivityQuery): Promise<Page<ActivityItem>> {
  const kinds = query.kinds.length > 0 ? query.kinds : ACTIVITY_KINDS;
  const offset = (query.page - 1) * query.perPage;
  const sql = `SELECT * FROM (${kinds.map((kind) => `(${PARTS[kind]})`).join(' UNION ALL ')}) feed
                ORDER BY created_at DESC, kind, id DESC LIMIT :pageLimit OFFSET :offset`;
  const brand = await reportCurrency(db, brandId);
  const result = await db.raw<{ rows: Array<Record<string, unknown>> }>(sql, {
    brandId,
    from: query.period.from,
    to: query.period.to,
    limit: offset + query.perPage + 1,
    pageLimit: query.perPage + 1,
    offset,
  });
  const rows = result.rows.map((row) => {
    // A claim is in the brand's currency; an order's old free-text currency that is no code reads as the brand's.
    const currency = row.amount === null ? null : (currencyCode(String(row.currency ?? '')) ?? brand.currency);
    const exponent = currency === null ? 2 : currencyExponent(currency);
    return {
      kind: row.kind as ActivityKind,
      id: Number(row.id),
      at: new Date(row.created_at as string),
      code: (row.code as string | null) ?? null,
      email: (row.email as string | null) ?? null,
      amount: row.amount === null ? null : amountFromMinor(minorFromDecimal(row.amount as string, exponent), exponent),
      currency,
      detail: (row.detail as string | null) ?? null,
      order_id: (row.order_id as string | null) ?? null,
    };
  });
  return pageOf(rows, query.page, query.perPage);
}

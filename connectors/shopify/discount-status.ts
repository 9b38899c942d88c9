import type { Knex } from 'knex';
import { NotFound } from '../../core/errors';
import { findBrandShopLink } from './shop-links';

export interface DiscountStatus {
  shop: string;
  /** pending: work left (or not started); synced: Shopify has the offer and every code; failed: see last_error. */
  status: 'pending' | 'synced' | 'failed';
  discount_id: string | null;
  discount_kind: string | null;
  last_error: string | null;
  synced_at: string | null;
  codes: { wanted: number; synced: number; pending: number; refused: number; to_remove: number };
  /** The codes Shopify refused, with its reason (the first 100). */
  refused: Array<{ code: string; error: string | null }>;
}

/** `referrals shopify codes`: what of the brand's offer and codes Shopify has, what is pending or refused, and why. */
export async function discountStatus(db: Knex, brandId: string): Promise<DiscountStatus> {
  const link = await findBrandShopLink(db, brandId);
  if (!link) throw new NotFound(`brand ${brandId} is not connected to a Shopify shop`);
  const row = await db('shopify_discounts').where({ brand_id: brandId, shop_domain: link.shop_domain }).first();
  const { rows } = await db.raw(
    `WITH wanted AS (
       SELECT c.code_normalized FROM referral_codes c JOIN advocates a ON a.brand_id = c.brand_id AND a.advocate_id = c.advocate_id
        WHERE c.brand_id = :brand AND c.kind = 'referral' AND a.status = 'active')
     SELECT (SELECT count(*) FROM wanted) AS wanted,
            (SELECT count(*) FROM shopify_discount_codes s WHERE s.brand_id = :brand AND s.shop_domain = :shop AND s.status = 'synced') AS synced,
            (SELECT count(*) FROM shopify_discount_codes s WHERE s.brand_id = :brand AND s.shop_domain = :shop AND s.status = 'refused') AS refused,
            (SELECT count(*) FROM wanted w WHERE NOT EXISTS (SELECT 1 FROM shopify_discount_codes s WHERE s.brand_id = :brand AND s.shop_domain = :shop AND s.code_normalized = w.code_normalized)) AS pending,
            (SELECT count(*) FROM shopify_discount_codes s WHERE s.brand_id = :brand AND s.shop_domain = :shop AND s.status = 'synced'
               AND NOT EXISTS (SELECT 1 FROM wanted w WHERE w.code_normalized = s.code_normalized)) AS to_remove`,
    { brand: brandId, shop: link.shop_domain },
  );
  const counts = rows[0] as Record<string, string>;
  const refused: Array<{ code: string; error: string | null }> = await db('shopify_discount_codes')
    .where({ brand_id: brandId, shop_domain: link.shop_domain, status: 'refused' })
    .orderBy('code')
    .limit(100)
    .select('code', 'error');
  return {
    shop: link.shop_domain,
    status: row?.status ?? 'pending',
    discount_id: row?.discount_id ?? null,
    discount_kind: row?.discount_kind ?? null,
    last_error: row?.last_error ?? null,
    synced_at: row?.synced_at ? new Date(row.synced_at).toISOString() : null,
    codes: {
      wanted: Number(counts.wanted),
      synced: Number(counts.synced),
      pending: Number(counts.pending),
      refused: Number(counts.refused),
      to_remove: Number(counts.to_remove),
    },
    refused,
  };
}

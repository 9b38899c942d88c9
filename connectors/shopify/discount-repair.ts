import type { Knex } from 'knex';
import { NotFound } from '../../core/errors';
import type { AdminApi } from './admin-api';
import { DISCOUNT_EXISTS } from './discount-documents';
import { findBrandShopLink } from './shop-links';

export interface DiscountRepair {
  shop: string;
  /** The discount was gone from Shopify: it and every code are made again by the next passes. */
  discount_recreated: boolean;
  /** Refused codes forgotten, so the next pass offers them again. */
  refused_retried: number;
}

/**
 * `referrals shopify codes --repair`: repairs drift between Shopify and what the service recorded.
 * A discount deleted in the admin is forgotten (the sync makes it again, with every code), and
 * refused codes are offered again (after the merchant freed them, say). The sync does the work.
 */
export async function repairDiscount(db: Knex, brandId: string, api: () => Promise<AdminApi>): Promise<DiscountRepair> {
  const link = await findBrandShopLink(db, brandId);
  if (!link) throw new NotFound(`brand ${brandId} is not connected to a Shopify shop`);
  const key = { brand_id: brandId, shop_domain: link.shop_domain };
  const row = await db('shopify_discounts').where(key).first('discount_id');
  let recreated = false;
  if (row?.discount_id) {
    const data = await (await api()).request<{ codeDiscountNode: { id: string } | null }>(DISCOUNT_EXISTS, { id: row.discount_id });
    if (!data.codeDiscountNode) {
      await db.transaction(async (trx) => {
        await trx('shopify_discount_codes').where(key).delete();
        await trx('shopify_discounts').where(key).update({ discount_id: null, discount_kind: null, offer_hash: null, status: 'pending', last_error: null, updated_at: trx.fn.now() });
      });
      recreated = true;
    }
  }
  // Counted from RETURNING, which every driver reports (the embedded database's row counts are not relied on).
  const retried = (await db('shopify_discount_codes').where({ ...key, status: 'refused' }).delete().returning('code_normalized')).length;
  if (retried > 0) await db('shopify_discounts').where(key).update({ status: 'pending', updated_at: db.fn.now() });
  return { shop: link.shop_domain, discount_recreated: recreated, refused_retried: retried };
}

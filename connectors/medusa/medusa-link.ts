import type { Knex } from 'knex';
import { updateBrand } from '../../core/brands/brand';

/**
 * The brand's Medusa store is linked by its plugin's first pull of reward issues (the plugin is what
 * turns them into promotions). A first link hands approved rewards out as single-use codes
 * (docs/merchants/reward-lifecycle.md "Fulfilment"), as a first Shopify link does; later pulls keep
 * what the merchant chose since. Returns whether this call linked it.
 */
export async function linkMedusaStore(trx: Knex.Transaction, brandId: string): Promise<boolean> {
  const linked = await trx('medusa_stores').insert({ brand_id: brandId }).onConflict('brand_id').ignore().returning('brand_id');
  if (linked.length === 0) return false;
  await updateBrand(trx, brandId, { reward_fulfilment: 'coupon' });
  return true;
}

/** Whether the brand's Medusa plugin ever pulled reward issues. */
export async function isMedusaLinked(db: Knex, brandId: string): Promise<boolean> {
  return Boolean(await db('medusa_stores').where({ brand_id: brandId }).first('brand_id'));
}

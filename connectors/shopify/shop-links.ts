import type { Knex } from 'knex';
import { updateBrand } from '../../core/brands/brand';
import { lockKey } from '../../core/db/advisory-lock';
import type { Executor } from '../../core/db/transaction';

/** Which brand a shop feeds, and how it is connected (our public app, or the merchant's custom app). */
export interface ShopLink {
  brand_id: string;
  shop_domain: string;
  app_kind: 'public' | 'custom';
  api_secret_encrypted: string | null;
  status: 'installed' | 'uninstalled';
  created_brand: boolean;
  /** The scopes granted at install (comma-separated); null for a custom app. */
  scopes: string | null;
  installed_at: Date;
  uninstalled_at: Date | null;
}

/** The brand linked to a shop domain (at most one: installs and connects serialise on the domain). */
export async function findShopLink(db: Executor, shopDomain: string): Promise<ShopLink | null> {
  const row = await db('shopify_shops').where({ shop_domain: shopDomain }).orderBy('installed_at', 'desc').first();
  return (row as ShopLink | undefined) ?? null;
}

export async function findBrandShopLink(db: Executor, brandId: string): Promise<ShopLink | null> {
  const row = await db('shopify_shops').where({ brand_id: brandId }).orderBy('installed_at', 'desc').first();
  return (row as ShopLink | undefined) ?? null;
}

/** Serialises every change to one shop's link inside the caller's transaction. */
export async function lockShop(trx: Knex.Transaction, shopDomain: string): Promise<void> {
  await lockKey(trx, `shopify-shop:${shopDomain}`);
}

/** Links (or re-links) a shop to a brand as installed now. */
export async function saveShopLink(
  trx: Knex.Transaction,
  link: Pick<ShopLink, 'brand_id' | 'shop_domain' | 'app_kind' | 'api_secret_encrypted'> & { created_brand?: boolean; scopes?: string | null },
): Promise<void> {
  const linkedBefore = await trx('shopify_shops').where({ brand_id: link.brand_id, shop_domain: link.shop_domain }).first('status');
  await trx('shopify_shops')
    .insert({
      brand_id: link.brand_id,
      shop_domain: link.shop_domain,
      app_kind: link.app_kind,
      api_secret_encrypted: link.api_secret_encrypted,
      created_brand: link.created_brand ?? false,
      scopes: link.scopes ?? null,
      status: 'installed',
    })
    .onConflict(['brand_id', 'shop_domain'])
    .merge({
      app_kind: link.app_kind,
      api_secret_encrypted: link.api_secret_encrypted,
      scopes: link.scopes ?? null,
      status: 'installed',
      installed_at: trx.fn.now(),
      uninstalled_at: null,
    });
  // The brand's codes become the shop's discount codes (docs/merchants/shopify-discounts.md): share links apply them at checkout.
  // A first link also hands approved rewards out as single-use codes (docs/merchants/reward-lifecycle.md
  // "Fulfilment"); a reinstall keeps what the merchant chose since.
  await updateBrand(trx, link.brand_id, { share_link_kind: 'shopify_discount', ...(linkedBefore ? {} : { reward_fulfilment: 'coupon' as const }) });
}

export async function markShopUninstalled(db: Executor, brandId: string, shopDomain: string): Promise<void> {
  await db('shopify_shops')
    .where({ brand_id: brandId, shop_domain: shopDomain })
    .update({ status: 'uninstalled', uninstalled_at: db.fn.now() });
}

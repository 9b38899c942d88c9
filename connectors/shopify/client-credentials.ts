import type { Executor } from '../../core/db/transaction';

/** The Dev Dashboard app's client id a shop was connected with; null for a public install or a permanent token. */
export async function findClientId(db: Executor, brandId: string, shop: string): Promise<string | null> {
  const row: { client_id: string | null } | undefined = await db('shopify_shops').where({ brand_id: brandId, shop_domain: shop }).first('client_id');
  return row?.client_id ?? null;
}

/** Records (or clears, for a permanent token) the client id a shop is connected with. */
export async function saveClientId(db: Executor, brandId: string, shop: string, clientId: string | null): Promise<void> {
  await db('shopify_shops').where({ brand_id: brandId, shop_domain: shop }).update({ client_id: clientId });
}

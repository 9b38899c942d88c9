import { deleteBrand } from '../../../core/brands/delete-brand';
import type { TopicHandler } from '../topics/topic-handler';

// The deletion order is the core's; kept importable here for the tests that pin it.
export { childrenFirst } from '../../../core/brands/delete-brand';

/** Shopify sends shop/redact this long after the uninstall, unless the shop installed the app again meanwhile. */
const REDACT_DELAY_MS = 48 * 3600_000;

/**
 * shop/redact (48 hours after an uninstall) → the shop's data is deleted: the whole brand when the
 * install created it, else (a brand the merchant connected) the shop's Shopify records only. It
 * stands alone: an app/uninstalled that never arrived does not keep the shop's data alive.
 */
export const handleShopRedact: TopicHandler = async (trx, brand, delivery) => {
  const link = await trx('shopify_shops').where({ brand_id: brand.brand_id, shop_domain: delivery.shop_domain }).first();
  const requestedAt = new Date(delivery.triggered_at ?? delivery.received_at).getTime();
  // Installed since the uninstall this request follows: the merchant is back, the data stays.
  if (link?.status === 'installed' && new Date(link.installed_at).getTime() > requestedAt - REDACT_DELAY_MS) {
    return { outcome: 'ignored: the shop has the app installed again' };
  }
  if (link?.created_brand) {
    const tables = await deleteBrand(trx, brand.brand_id);
    return { outcome: 'shop_deleted', result: { brand_id: brand.brand_id, tables_cleared: tables } };
  }
  for (const table of ['shopify_data_requests', 'shopify_inbox', 'shopify_sessions', 'shopify_shops']) {
    await trx(table).where({ brand_id: brand.brand_id, shop_domain: delivery.shop_domain }).delete();
  }
  return { outcome: 'shop_unlinked', result: { brand_id: brand.brand_id } };
};

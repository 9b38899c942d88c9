import { recordAudit } from '../../../core/audit/audit-log';
import { updateBrand } from '../../../core/brands/brand';
import { deleteShopSessions } from '../session-storage';
import { markShopUninstalled } from '../shop-links';
import type { TopicHandler } from './topic-handler';

/** app/uninstalled → the brand is marked uninstalled and the shop's sessions (tokens) are deleted. */
export const handleAppUninstalled: TopicHandler = async (trx, brand, delivery) => {
  const link = await trx('shopify_shops').where({ brand_id: brand.brand_id, shop_domain: delivery.shop_domain }).first();
  const happenedAt = delivery.triggered_at ?? delivery.received_at;
  // A late uninstall of an earlier installation must not undo the shop's reinstall.
  if (link && link.status === 'installed' && new Date(happenedAt) < new Date(link.installed_at)) {
    return { outcome: 'ignored: the shop reinstalled the app after this uninstall' };
  }
  await updateBrand(trx, brand.brand_id, { status: 'uninstalled' });
  await markShopUninstalled(trx, brand.brand_id, delivery.shop_domain);
  const sessionsDeleted = await deleteShopSessions(trx, brand.brand_id, delivery.shop_domain);
  await recordAudit(trx, {
    brandId: brand.brand_id,
    actor: `Shopify (${delivery.shop_domain})`,
    action: 'shopify.uninstall',
    subject: `shop:${delivery.shop_domain}`,
    before: { status: brand.status },
    after: { status: 'uninstalled' },
  });
  return { outcome: 'uninstalled', result: { sessions_deleted: sessionsDeleted } };
};

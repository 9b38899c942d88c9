import type { Logger, MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { runPromotionSync } from '../lib/run-promotion-sync';

/**
 * Keeps a Medusa promotion per referral code in step with the referral service
 * (lib/promotion-sync.ts): new advocates' codes become promotions mirroring the friend offer, a
 * changed offer updates them, a deactivated advocate's are set inactive. A failed run changes
 * nothing it has not finished and is retried whole at the next; POST /admin/referral-promotions/sync
 * runs it at once.
 */
export default async function syncReferralPromotionsJob(container: MedusaContainer): Promise<void> {
  try {
    await runPromotionSync(container);
  } catch (error) {
    container.resolve<Logger>(ContainerRegistrationKeys.LOGGER).warn(`referral plugin: promotion sync failed, retried in a minute: ${(error as Error).message}`);
  }
}

// Every minute: a new advocate's code works at checkout within a minute; an idle run is two small GETs to the service and no write.
export const config = { name: 'referrals-sync-promotions', schedule: { interval: 60_000 } };

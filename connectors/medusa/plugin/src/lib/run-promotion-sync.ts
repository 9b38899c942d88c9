import type { Logger, MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { REFERRALS_MODULE } from '../modules/referrals';
import type ReferralsModuleService from '../modules/referrals/service';
import { medusaPromotionGateway } from './medusa-promotions';
import { type SyncSummary, serviceReader, syncReferralPromotions } from './promotion-sync';

const running = new WeakMap<object, Promise<SyncSummary>>();

/**
 * One promotion sync in this Medusa process at a time (the scheduled job and the admin route share
 * it): a run asked for while one is under way waits for it and answers its summary.
 */
export function runPromotionSync(container: MedusaContainer): Promise<SyncSummary> {
  const referrals = container.resolve<ReferralsModuleService>(REFERRALS_MODULE);
  const current = running.get(referrals);
  if (current) return current;
  const logger = container.resolve<Logger>(ContainerRegistrationKeys.LOGGER);
  const run = syncReferralPromotions({
    service: serviceReader(referrals.options),
    gateway: medusaPromotionGateway(container, referrals.options.brandId),
    state: referrals,
    logger,
    options: referrals.options,
  }).finally(() => running.delete(referrals));
  running.set(referrals, run);
  return run;
}

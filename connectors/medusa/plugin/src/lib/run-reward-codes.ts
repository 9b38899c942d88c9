import type { Logger, MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { REFERRALS_MODULE } from '../modules/referrals';
import type ReferralsModuleService from '../modules/referrals/service';
import { medusaRewardPromotionGateway } from './medusa-reward-promotions';
import { medusaStoreCreditGateway } from './medusa-store-credit';
import { type RewardCodeSummary, issueRewardPromotions } from './reward-codes';
import { rewardIssueClient } from './reward-issue-client';

const running = new WeakMap<object, Promise<RewardCodeSummary>>();

/** One reward-code run in this Medusa process at a time: a run asked for while one is under way answers its summary. */
export function runRewardCodes(container: MedusaContainer): Promise<RewardCodeSummary> {
  const referrals = container.resolve<ReferralsModuleService>(REFERRALS_MODULE);
  const current = running.get(referrals);
  if (current) return current;
  const run = issueRewardPromotions({
    service: rewardIssueClient(referrals.options),
    gateway: medusaRewardPromotionGateway(container),
    storeCredit: medusaStoreCreditGateway(container),
    brandId: referrals.options.brandId,
    logger: container.resolve<Logger>(ContainerRegistrationKeys.LOGGER),
  }).finally(() => running.delete(referrals));
  running.set(referrals, run);
  return run;
}

import type { Logger, MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { runRewardCodes } from '../lib/run-reward-codes';

/**
 * Makes the advocates' reward codes Medusa promotions (lib/reward-codes.ts): pulls the due ones from
 * the referral service, makes each a single-use promotion for the advocate's customer account, and
 * reports it. A failed run is retried at the next; what it had not reported is handed out again.
 */
export default async function issueRewardCodesJob(container: MedusaContainer): Promise<void> {
  try {
    await runRewardCodes(container);
  } catch (error) {
    container.resolve<Logger>(ContainerRegistrationKeys.LOGGER).warn(`referral plugin: reward codes not pulled, tried again in 10 s: ${(error as Error).message}`);
  }
}

// Every 10 s: an approved reward's code works at checkout within about that; an idle run is one small GET to the service.
export const config = { name: 'referrals-issue-reward-codes', schedule: { interval: 10_000 } };

import type { DeliveryLogger } from './deliver-snapshot';
import type { RewardIssue, RewardIssueService, RewardPromotionGateway } from './reward-codes';
import { isOurs } from './reward-promotion-owner';

/**
 * Takes a reward code back (docs/merchants/medusa.md "Reward codes"): the service marked it so (a
 * refund left its advocate owing, or it expired). Its promotion is looked up by code: counted used
 * by Medusa, it stays spent (`used`); else it is deleted and reported `revoked`, and the service
 * returns its money and issues what is left. No promotion of ours (deleted by a run that crashed
 * before its report, never made, or one the merchant made by hand with the code) is reported
 * `revoked` as well, so a repeated run settles it once.
 */
export async function takeBackRewardPromotion(
  issue: RewardIssue,
  brandId: string,
  gateway: RewardPromotionGateway,
  service: RewardIssueService,
  logger: DeliveryLogger,
): Promise<'revoked' | 'used' | 'failed'> {
  let outcome: 'revoked' | 'used';
  try {
    outcome = await removeUnused(issue, brandId, gateway);
  } catch (error) {
    const reason = (error as Error).message;
    logger.warn(`referral plugin: reward code ${issue.code} not taken back; the referral service retries it later: ${reason}`);
    await service.failed(issue.issue_id, reason);
    return 'failed';
  }
  // A report the service does not take ends the run: the lease expires and the next run looks again.
  if (outcome === 'used') await service.used(issue.issue_id);
  else await service.revoked(issue.issue_id);
  return outcome;
}

/** Medusa's side: the issue's promotion deleted unless Medusa counted it used; none of ours is nothing to delete. */
async function removeUnused(issue: RewardIssue, brandId: string, gateway: RewardPromotionGateway): Promise<'revoked' | 'used'> {
  const found = await gateway.findByCode(issue.code);
  if (!found || !isOurs(found, issue, brandId)) return 'revoked';
  if (found.used > 0) return 'used';
  await deletePromotion(gateway, found.id, issue.code);
  return 'revoked';
}

/** Deletes the promotion; one gone already ("not found": another run deleted it) is done. */
async function deletePromotion(gateway: RewardPromotionGateway, promotionId: string, code: string): Promise<void> {
  try {
    await gateway.delete(promotionId);
  } catch (error) {
    if ((await gateway.findByCode(code)) !== null) throw error;
  }
}

import type { ExistingRewardPromotion, RewardIssue } from './reward-codes';

/** Whether a promotion with the issue's code is the one the plugin made for it (its metadata names the brand and the issue). */
export function isOurs(promotion: ExistingRewardPromotion, issue: Pick<RewardIssue, 'issue_id'>, brandId: string): boolean {
  return promotion.metadata?.referrals_brand_id === brandId && Number(promotion.metadata?.referrals_issue_id) === issue.issue_id;
}

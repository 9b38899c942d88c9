import type { DeliveryLogger } from './deliver-snapshot';
import { isOurs } from './reward-promotion-owner';
import { takeBackRewardPromotion } from './reward-take-back';

/**
 * The advocate's reward as a Medusa promotion (docs/merchants/medusa.md "Reward codes"): the
 * referral service keeps each approved reward of a coupon brand as an issue with its own code; a
 * scheduled job (jobs/issue-reward-codes.ts) pulls the due ones, makes each a promotion in the store
 * (standard, not automatic, a fixed amount off the order in the brand's currency, `limit` 1, and a
 * rule `customer.id in [the store's customers with the advocate's email]` when there are any),
 * and reports it issued, or failed with Medusa's reason. The code is the issue's own, looked up
 * before creating: a plugin that crashes between Medusa's answer and its report finds the promotion
 * at the next pull (its lease expired) and reports it then, so each issue is made once. A code the
 * service takes back (a refund, its expiry) comes as `take_back` (reward-take-back.ts).
 */

/** An issue as GET /medusa/reward-issues answers it. */
export interface RewardIssue {
  issue_id: number;
  /** make its promotion, or take it back (an older service sends no action: make). */
  action?: 'make' | 'take_back';
  /** take_back: the promotion's id when it was reported made (else it is looked up by code all the same). */
  platform_id?: string | null;
  code: string;
  amount: number;
  currency: string;
  advocate_email: string;
  attempts: number;
}

/** A promotion with a reward code, as the gateway reads it. */
export interface ExistingRewardPromotion {
  id: string;
  metadata: Record<string, unknown> | null;
  /** Uses Medusa counted (a completed cart with the code; `limit` 1 stops at one). */
  used: number;
}

/** The promotion the plugin makes for an issue. */
export interface RewardPromotionSpec {
  code: string;
  application_method: { type: 'fixed'; target_type: 'order'; allocation: 'across'; value: number; currency_code: string };
  /** Used once, by anyone the rules let: Medusa counts a use when a cart with it completes. */
  limit: 1;
  rules: Array<{ attribute: 'customer.id'; operator: 'in'; values: string[] }>;
  metadata: { referrals_brand_id: string; referrals_issue_id: number; referrals_reward_code: true };
}

/** Medusa's side: query.graph reads, the promotion workflow writes (medusa-reward-promotions.ts). */
export interface RewardPromotionGateway {
  findByCode(code: string): Promise<ExistingRewardPromotion | null>;
  /** The store's customers (registered or guest) with this email. */
  customerIdsByEmail(email: string): Promise<string[]>;
  /** Makes the promotion; returns its id. */
  create(spec: RewardPromotionSpec): Promise<string>;
  /** Deletes the promotion: no cart can apply its code after. */
  delete(promotionId: string): Promise<void>;
}

/** The referral service's side (reward-issue-client.ts). */
export interface RewardIssueService {
  pull(): Promise<RewardIssue[]>;
  /** Returns the issue's state as the service recorded it: `issued`, or (taken back meanwhile) another. */
  issued(issueId: number, promotionId: string): Promise<{ status: string }>;
  failed(issueId: number, reason: string): Promise<void>;
  /** The promotion of a code taken back is gone (deleted, or never made). */
  revoked(issueId: number): Promise<void>;
  /** Medusa counted a use of a code taken back before it could be deleted: it stays spent. */
  used(issueId: number): Promise<void>;
}

export interface RewardCodeSummary {
  pulled: number;
  issued: number;
  failed: number;
  /** Codes taken back: their promotions deleted (or none found). */
  revoked: number;
  /** Codes to take back that Medusa had counted used. */
  used: number;
}

/** The promotion of an issue: restricted to the advocate's customers in the store when it has any (else whoever holds the code: it is sent to the advocate alone). */
export function rewardPromotionSpec(issue: RewardIssue, brandId: string, customerIds: string[]): RewardPromotionSpec {
  return {
    code: issue.code,
    application_method: { type: 'fixed', target_type: 'order', allocation: 'across', value: issue.amount, currency_code: issue.currency.toLowerCase() },
    limit: 1,
    rules: customerIds.length > 0 ? [{ attribute: 'customer.id', operator: 'in', values: [...customerIds].sort() }] : [],
    metadata: { referrals_brand_id: brandId, referrals_issue_id: issue.issue_id, referrals_reward_code: true },
  };
}

/** The issue's promotion: found, or made. Throws Medusa's refusal. */
async function promotionFor(issue: RewardIssue, brandId: string, gateway: RewardPromotionGateway): Promise<string> {
  const existing = await gateway.findByCode(issue.code);
  if (existing) {
    if (isOurs(existing, issue, brandId)) return existing.id;
    throw new Error(`a promotion with the code ${issue.code} already exists in Medusa (${existing.id}) and was not made by the referral plugin for this reward`);
  }
  const customers = await gateway.customerIdsByEmail(issue.advocate_email);
  return gateway.create(rewardPromotionSpec(issue, brandId, customers));
}

/**
 * One run: each pulled issue made (or found) and reported, or taken back (reward-take-back.ts). A
 * refusal by Medusa is reported as the issue's failure (the service retries it later); a report the
 * service does not take ends the run, and the leases left expire, so the next run starts over.
 */
export async function issueRewardPromotions(deps: { service: RewardIssueService; gateway: RewardPromotionGateway; brandId: string; logger: DeliveryLogger }): Promise<RewardCodeSummary> {
  const { service, gateway, brandId, logger } = deps;
  const issues = await service.pull();
  const summary: RewardCodeSummary = { pulled: issues.length, issued: 0, failed: 0, revoked: 0, used: 0 };
  for (const issue of issues) {
    if (issue.action === 'take_back') {
      const outcome = await takeBackRewardPromotion(issue, brandId, gateway, service, logger);
      summary[outcome] += 1;
      continue;
    }
    let promotionId: string;
    try {
      promotionId = await promotionFor(issue, brandId, gateway);
    } catch (error) {
      const reason = (error as Error).message;
      logger.warn(`referral plugin: reward code ${issue.code} not made a promotion; the referral service retries it later: ${reason}`);
      await service.failed(issue.issue_id, reason);
      summary.failed += 1;
      continue;
    }
    const recorded = await service.issued(issue.issue_id, promotionId);
    // Taken back and settled while it was being made (its lease outlived): nothing of it may stay usable.
    if (recorded.status === 'revoked') await deleteSettled(gateway, promotionId, issue.code, logger);
    summary.issued += 1;
  }
  if (summary.issued > 0) logger.info(`referral plugin: ${summary.issued} reward code(s) made Medusa promotions`);
  if (summary.revoked > 0) logger.info(`referral plugin: ${summary.revoked} reward code(s) taken back`);
  return summary;
}

/** The service will not hand a settled code out again: a delete Medusa refuses is the merchant's to do, so the log names the promotion. */
async function deleteSettled(gateway: RewardPromotionGateway, promotionId: string, code: string, logger: DeliveryLogger): Promise<void> {
  try {
    await gateway.delete(promotionId);
  } catch (error) {
    logger.error(`referral plugin: reward code ${code} was taken back while its promotion ${promotionId} was made, and Medusa refused to delete it: delete it in the admin (${(error as Error).message})`);
  }
}

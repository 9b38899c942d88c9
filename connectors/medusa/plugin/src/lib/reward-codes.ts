import type { DeliveryLogger } from './deliver-snapshot';
import { isOurs } from './reward-promotion-owner';
import { type StoreCreditGateway, creditOrCode } from './reward-store-credit';
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
 * service takes back (a refund, its expiry) comes as `take_back` (reward-take-back.ts). A store_credit
 * brand's issue is credited to the advocate's customer account, or made a code (reward-store-credit.ts).
 */

/** An issue as GET /medusa/reward-issues answers it. */
export interface RewardIssue {
  issue_id: number;
  /** make its promotion, or take it back (an older service sends no action: make). */
  action?: 'make' | 'take_back';
  /** store_credit: credit it where the store can, else make its code (an older service sends none: code). */
  method?: 'code' | 'store_credit';
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
  /** referrals_no_customer_account: made in place of store credit for that reason (a later run reports it so). */
  metadata: { referrals_brand_id: string; referrals_issue_id: number; referrals_reward_code: true; referrals_no_customer_account?: true };
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
  issued(issueId: number, promotionId: string, options?: { noCustomerAccount?: boolean }): Promise<{ status: string }>;
  /** A store credit issue credited: the transaction's id. */
  credited(issueId: number, transactionId: string): Promise<void>;
  failed(issueId: number, reason: string): Promise<void>;
  /** The promotion of a code taken back is gone (deleted, or never made). */
  revoked(issueId: number): Promise<void>;
  /** Medusa counted a use of a code taken back before it could be deleted: it stays spent. */
  used(issueId: number): Promise<void>;
}

export interface RewardCodeSummary {
  pulled: number;
  issued: number;
  /** Store credit issues credited (counted in issued too). */
  credited: number;
  failed: number;
  /** Codes taken back: their promotions deleted (or none found). */
  revoked: number;
  /** Codes to take back that Medusa had counted used. */
  used: number;
}

/** The promotion of an issue: restricted to the advocate's customers in the store when it has any (else whoever holds the code: it is sent to the advocate alone). */
export function rewardPromotionSpec(issue: RewardIssue, brandId: string, customerIds: string[], noCustomerAccount = false): RewardPromotionSpec {
  return {
    code: issue.code,
    application_method: { type: 'fixed', target_type: 'order', allocation: 'across', value: issue.amount, currency_code: issue.currency.toLowerCase() },
    limit: 1,
    rules: customerIds.length > 0 ? [{ attribute: 'customer.id', operator: 'in', values: [...customerIds].sort() }] : [],
    metadata: { referrals_brand_id: brandId, referrals_issue_id: issue.issue_id, referrals_reward_code: true, ...(noCustomerAccount ? { referrals_no_customer_account: true as const } : {}) },
  };
}

/** The issue's promotion: found, or made. Throws Medusa's refusal. */
async function promotionFor(issue: RewardIssue, brandId: string, gateway: RewardPromotionGateway, noCustomerAccount = false): Promise<string> {
  const existing = await gateway.findByCode(issue.code);
  if (existing) {
    if (isOurs(existing, issue, brandId)) return existing.id;
    throw new Error(`a promotion with the code ${issue.code} already exists in Medusa (${existing.id}) and was not made by the referral plugin for this reward`);
  }
  const customers = await gateway.customerIdsByEmail(issue.advocate_email);
  return gateway.create(rewardPromotionSpec(issue, brandId, customers, noCustomerAccount));
}

/**
 * One run: each pulled issue made (or found) and reported, or taken back (reward-take-back.ts). A
 * refusal by Medusa is reported as the issue's failure (the service retries it later); a report the
 * service does not take ends the run, and the leases left expire, so the next run starts over.
 */
export async function issueRewardPromotions(deps: {
  service: RewardIssueService;
  gateway: RewardPromotionGateway;
  /** The store's Store Credit Module; null (or left out) where it runs none. */
  storeCredit?: StoreCreditGateway | null;
  brandId: string;
  logger: DeliveryLogger;
}): Promise<RewardCodeSummary> {
  const { service, gateway, brandId, logger } = deps;
  const issues = await service.pull();
  const summary: RewardCodeSummary = { pulled: issues.length, issued: 0, credited: 0, failed: 0, revoked: 0, used: 0 };
  for (const issue of issues) {
    if (issue.action === 'take_back') {
      const outcome = await takeBackRewardPromotion(issue, brandId, gateway, service, logger);
      summary[outcome] += 1;
      continue;
    }
    let made: Made;
    try {
      made = await makeIssue(issue, brandId, gateway, deps.storeCredit ?? null, logger);
    } catch (error) {
      const reason = (error as Error).message;
      logger.warn(`referral plugin: reward code ${issue.code} not made a promotion; the referral service retries it later: ${reason}`);
      await service.failed(issue.issue_id, reason);
      summary.failed += 1;
      continue;
    }
    if ('transactionId' in made) {
      await service.credited(issue.issue_id, made.transactionId);
      summary.issued += 1;
      summary.credited += 1;
      continue;
    }
    const { promotionId, noCustomerAccount } = made;
    const recorded = await service.issued(issue.issue_id, promotionId, noCustomerAccount ? { noCustomerAccount } : undefined);
    // Taken back and settled while it was being made (its lease outlived): nothing of it may stay usable.
    if (recorded.status === 'revoked') await deleteSettled(gateway, promotionId, issue.code, logger);
    summary.issued += 1;
  }
  if (summary.issued > summary.credited) logger.info(`referral plugin: ${summary.issued - summary.credited} reward code(s) made Medusa promotions`);
  if (summary.credited > 0) logger.info(`referral plugin: ${summary.credited} reward(s) credited as store credit`);
  if (summary.revoked > 0) logger.info(`referral plugin: ${summary.revoked} reward code(s) taken back`);
  return summary;
}

/** What Medusa has for an issue: its code's promotion (in place of store credit: whether for want of a customer account), or a store credit transaction. */
type Made = { promotionId: string; noCustomerAccount: boolean } | { transactionId: string };

/** The issue's store credit, or its promotion (found, or made). Throws Medusa's refusal. */
async function makeIssue(issue: RewardIssue, brandId: string, gateway: RewardPromotionGateway, storeCredit: StoreCreditGateway | null, logger: DeliveryLogger): Promise<Made> {
  if (issue.method !== 'store_credit') return { promotionId: await promotionFor(issue, brandId, gateway), noCustomerAccount: false };
  const outcome = await creditOrCode(issue, brandId, gateway, storeCredit);
  if (outcome.method === 'store_credit') return { transactionId: outcome.transactionId };
  if (!storeCredit) logger.warn(`referral plugin: the brand hands rewards out as store credit, but this store runs no Store Credit Module (@medusajs/loyalty-plugin): reward ${issue.code} is made a code instead`);
  return { promotionId: await promotionFor(issue, brandId, gateway, outcome.noCustomerAccount), noCustomerAccount: outcome.noCustomerAccount };
}

/** The service will not hand a settled code out again: a delete Medusa refuses is the merchant's to do, so the log names the promotion. */
async function deleteSettled(gateway: RewardPromotionGateway, promotionId: string, code: string, logger: DeliveryLogger): Promise<void> {
  try {
    await gateway.delete(promotionId);
  } catch (error) {
    logger.error(`referral plugin: reward code ${code} was taken back while its promotion ${promotionId} was made, and Medusa refused to delete it: delete it in the admin (${(error as Error).message})`);
  }
}

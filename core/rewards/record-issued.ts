import type { Knex } from 'knex';
import { enqueueMail } from '../mail/enqueue-mail';
import { rewardIssuedMail } from '../mail/program-mail';
import { emitWebhookEvents } from '../webhooks/emit-event';
import type { IssueMethod } from './advocate-issues';

/** A reward issue as a platform's worker leased it (core/rewards/issue-rewards.ts wrote it). */
export interface LeasedIssue {
  brand_id: string;
  issue_id: string;
  advocate_id: string;
  amount: string;
  currency: string;
  code: string;
  attempts: number;
}

/** The data of reward.issued (docs/api/webhooks.md): the advocate's code, or store credit, as the store has it. */
export interface RewardIssuedData {
  issue_id: number;
  advocate_id: number;
  amount: number;
  currency: string;
  /** How it reached the advocate: a single-use code, or credit on their customer account. */
  method: IssueMethod;
  /** The code; null for store credit. */
  code: string | null;
  /** Where it lives, and its id there (a Shopify discount node, or a store credit transaction). */
  platform: string;
  platform_id: string;
}

/** What the platform made of an issue: its id there, how (a code unless said), and whether a code stands in for store credit (no customer account). */
export interface IssuedOnPlatform {
  name: string;
  id: string;
  method?: IssueMethod;
  noCustomerAccount?: boolean;
}

/**
 * The store has the issue's code (or its store credit): it is recorded issued, with how, and the advocate (reward_issued) and the
 * brand's systems (reward.issued) hear of it, in one transaction — never of a code the store does
 * not have yet, nor of one marked to be taken back meanwhile. Whichever platform made it calls
 * this. Returns whether it was recorded issued.
 */
export async function recordIssued(db: Knex, issue: LeasedIssue, platform: IssuedOnPlatform): Promise<boolean> {
  const method = platform.method ?? 'code';
  return db.transaction(async (trx) => {
    const key = { brand_id: issue.brand_id, issue_id: issue.issue_id };
    const made = { method, platform_id: platform.id, last_error: null, lease_until: null, attempts: issue.attempts + 1 };
    const moved = await trx('reward_issues')
      .where(key)
      .whereIn('status', ['pending', 'failed'])
      .update({ ...made, status: 'issued', issued_at: trx.fn.now() })
      .returning('expires_at');
    if (moved.length === 0) {
      // Taken back while it was being made (a refund, its expiry): nobody hears of it; the worker's next pass removes it.
      await trx('reward_issues').where(key).whereNull('platform_id').update(made);
      return false;
    }
    const ids = { issueId: Number(issue.issue_id), advocateId: Number(issue.advocate_id) };
    const expiresAt: Date | null = moved[0].expires_at;
    await enqueueMail(trx, [
      rewardIssuedMail(issue.brand_id, { ...ids, amount: issue.amount, code: issue.code, method, noCustomerAccount: platform.noCustomerAccount, expiresAt: expiresAt && new Date(expiresAt).toISOString() }),
    ]);
    const data: RewardIssuedData = {
      issue_id: ids.issueId,
      advocate_id: ids.advocateId,
      amount: Number(issue.amount),
      currency: issue.currency,
      method,
      code: method === 'code' ? issue.code : null,
      platform: platform.name,
      platform_id: platform.id,
    };
    await emitWebhookEvents(trx, issue.brand_id, [{ type: 'reward.issued', data }]);
    return true;
  });
}

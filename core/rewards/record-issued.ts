import type { Knex } from 'knex';
import { enqueueMail } from '../mail/enqueue-mail';
import { rewardIssuedMail } from '../mail/program-mail';
import { emitWebhookEvents } from '../webhooks/emit-event';

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

/** The data of reward.issued (docs/api/webhooks.md): the advocate's code as the store has it. */
export interface RewardIssuedData {
  issue_id: number;
  advocate_id: number;
  amount: number;
  currency: string;
  code: string;
  /** Where the code lives, and its id there (a Shopify discount node). */
  platform: string;
  platform_id: string;
}

/**
 * The store has the issue's code: it is recorded issued, and the advocate (reward_issued) and the
 * brand's systems (reward.issued) hear of it, in one transaction — never of a code the store does
 * not have yet. Whichever platform made it calls this.
 */
export async function recordIssued(db: Knex, issue: LeasedIssue, platform: { name: string; id: string }): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('reward_issues')
      .where({ brand_id: issue.brand_id, issue_id: issue.issue_id })
      .update({ status: 'issued', platform_id: platform.id, issued_at: trx.fn.now(), last_error: null, lease_until: null, attempts: issue.attempts + 1 });
    const ids = { issueId: Number(issue.issue_id), advocateId: Number(issue.advocate_id) };
    await enqueueMail(trx, [rewardIssuedMail(issue.brand_id, { ...ids, amount: issue.amount, code: issue.code })]);
    const data: RewardIssuedData = {
      issue_id: ids.issueId,
      advocate_id: ids.advocateId,
      amount: Number(issue.amount),
      currency: issue.currency,
      code: issue.code,
      platform: platform.name,
      platform_id: platform.id,
    };
    await emitWebhookEvents(trx, issue.brand_id, [{ type: 'reward.issued', data }]);
  });
}

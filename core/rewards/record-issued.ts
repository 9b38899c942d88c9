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
 * not have yet, nor of one marked to be taken back meanwhile. Whichever platform made it calls
 * this. Returns whether it was recorded issued.
 */
export async function recordIssued(db: Knex, issue: LeasedIssue, platform: { name: string; id: string }): Promise<boolean> {
  return db.transaction(async (trx) => {
    const key = { brand_id: issue.brand_id, issue_id: issue.issue_id };
    const made = { platform_id: platform.id, last_error: null, lease_until: null, attempts: issue.attempts + 1 };
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
    await enqueueMail(trx, [rewardIssuedMail(issue.brand_id, { ...ids, amount: issue.amount, code: issue.code, expiresAt: expiresAt && new Date(expiresAt).toISOString() })]);
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
    return true;
  });
}

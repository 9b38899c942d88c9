import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit-log';
import { NotFound } from '../errors';

/**
 * A merchant (dashboard) or operator (`shopify codes --retry-rewards`) asks for refused reward
 * issues to be tried again on the worker's next pass instead of after their backoff: one issue, or
 * all the brand's refused ones. Recorded in the audit log with how many. Returns how many.
 */
export async function retryFailedIssues(trx: Knex.Transaction, brandId: string, actor: string, issueId?: number): Promise<number> {
  if (issueId !== undefined) {
    const found = await trx('reward_issues').where({ brand_id: brandId, issue_id: issueId }).first('status');
    if (!found) throw new NotFound(`reward issue ${issueId} not found`);
  }
  const retried = await trx('reward_issues')
    .where({ brand_id: brandId, status: 'failed' })
    .modify((query) => {
      if (issueId !== undefined) query.andWhere({ issue_id: issueId });
    })
    .update({ next_attempt_at: trx.fn.now() });
  if (retried > 0) await recordAudit(trx, { brandId, actor, action: 'reward_issue.retry', subject: issueId === undefined ? 'brand' : `reward_issue:${issueId}`, after: { retried } });
  return retried;
}

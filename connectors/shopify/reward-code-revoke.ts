import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { recordRevoked, recordUsed } from '../../core/rewards/record-revoked';
import type { AdminApi } from './admin-api';
import { accessHint } from './discount-sync';
import { DELETE_REWARD_CODE, REWARD_CODE_BY_CODE } from './reward-code-documents';
import { issueRetryAfterSeconds } from '../../core/rewards/record-issue-failed';
import type { IssueRow } from './reward-codes';

/**
 * Takes a reward code back from a linked shop (docs/merchants/shopify.md "Reward codes"): an issue
 * marked `revoking` (a refund left its advocate owing, or it expired) is looked up by its code; used
 * already, it stays spent; else its discount is deleted and core returns its money and issues what
 * is left. Safe to repeat: a pass that stops between Shopify's delete and the commit finds no code
 * next time and records the return then, once.
 */

interface FoundCode {
  codeDiscountNodeByCode: { id: string; codeDiscount: { asyncUsageCount?: number } | null } | null;
}

interface UserError {
  field: string[] | null;
  message: string;
}

/** Shopify's discount of the code (null: it has none), with how often it was used. */
async function findCode(api: AdminApi, code: string): Promise<{ id: string; uses: number } | null> {
  const node = (await api.request<FoundCode>(REWARD_CODE_BY_CODE, { code })).codeDiscountNodeByCode;
  return node ? { id: node.id, uses: node.codeDiscount?.asyncUsageCount ?? 0 } : null;
}

/** Deletes the discount; "not found" is done (another pass deleted it), any other refusal is thrown with Shopify's words. */
async function deleteCode(api: AdminApi, id: string, code: string): Promise<void> {
  const data = await api.request<{ discountCodeDelete: { deletedCodeDiscountId: string | null; userErrors: UserError[] } }>(DELETE_REWARD_CODE, { id });
  const { userErrors } = data.discountCodeDelete;
  if (userErrors.length === 0 || (await findCode(api, code)) === null) return;
  throw new Error(userErrors.map((error) => `${(error.field ?? []).join('.') || 'discount'}: ${error.message}`).join('; '));
}

/** One issue taken back (or left spent); a refusal is recorded with Shopify's reason and tried again later. Returns whether it was settled. */
export async function revokeCode(db: Knex, apiFor: () => Promise<AdminApi>, issue: IssueRow, logger?: Logger): Promise<boolean> {
  try {
    const api = await apiFor();
    const found = await findCode(api, issue.code);
    if (found && found.uses > 0) {
      await recordUsed(db, issue);
      return true;
    }
    if (found) await deleteCode(api, found.id, issue.code);
    await recordRevoked(db, issue);
    return true;
  } catch (error) {
    const attempts = issue.attempts + 1;
    logger?.warn({ err: error, brand_id: issue.brand_id, issue_id: issue.issue_id }, 'shopify reward code not taken back; tried again later');
    await db('reward_issues')
      .where({ brand_id: issue.brand_id, issue_id: issue.issue_id, status: 'revoking' })
      .update({
        attempts,
        last_error: accessHint(String((error as Error).message)).slice(0, 2000),
        next_attempt_at: db.raw('now() + make_interval(secs => ?)', [issueRetryAfterSeconds(attempts)]),
        lease_until: null,
      });
    return false;
  }
}

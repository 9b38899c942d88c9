import { inTransaction } from '../../core/db/transaction';
import { Invalid } from '../../core/errors';
import { type MerchantIssue, merchantIssues } from '../../core/rewards/advocate-issues';
import { retryFailedIssues } from '../../core/rewards/retry-issues';
import type { Ctx } from '../app-context';
import { runForm, seeOther } from './form-actions';
import { countOf, doneOf } from './form-notice';
import { formatCount } from './render-page';

/**
 * The reward codes a coupon brand's advocates were handed (docs/merchants/reward-lifecycle.md
 * "Fulfilment"), as the merchant follows them: on an advocate's page, theirs; on Payouts, the ones
 * the store refused, with its reason and a retry.
 */

/** What an issue's state means to the merchant, in words. */
export function issueWords(issue: Pick<MerchantIssue, 'state' | 'method'> & { status?: string }): string {
  if (issue.state === 'used') return 'used';
  if (issue.state === 'withdrawn') return 'taken back after a refund (what was left went into a new code)';
  if (issue.state === 'expired') return 'expired unused (its money went into a new code)';
  if (issue.status === 'failed') return 'not on your store yet';
  if (issue.state === 'on_its_way') return 'being made on your store';
  return issue.method === 'store_credit' ? 'added to their store credit' : 'on your store, not used yet';
}

/** The status line after a retry: how many were queued (a number from the redirect, never text). */
export function retryNotice(ctx: Ctx): string | null {
  if (doneOf(ctx, ['retried']) === null) return null;
  const count = countOf(ctx, 'retried') ?? 0;
  if (count === 0) return 'Nothing to try again: those codes are no longer refused.';
  return `${formatCount(count)} ${count === 1 ? 'code is' : 'codes are'} tried again within a minute.`;
}

/** An advocate's issues for their page (newest 50). */
export async function advocateRewardCodes(ctx: Ctx, advocateId: number) {
  const { brand } = ctx.state.viewer!;
  return { issues: await merchantIssues(ctx.app.context.deps.db, brand.brand_id, { advocateId }, 50), issueWords };
}

/** The brand's refused issues for Payouts (newest 100). */
export async function refusedRewardCodes(ctx: Ctx) {
  const { brand } = ctx.state.viewer!;
  return { refusedIssues: await merchantIssues(ctx.app.context.deps.db, brand.brand_id, { failedOnly: true }, 100), issueWords };
}

/**
 * POST /dashboard/reward-codes/retry: one refused issue (`issue_id`), or all of them, tried again on
 * the worker's next pass; back to Payouts or the advocate's page (`back`: an advocate id) with a count.
 */
export async function retryRewardCodesForm(ctx: Ctx, form: URLSearchParams, refused: (status: number, message: string) => Promise<void>): Promise<void> {
  await runForm(
    ctx,
    form,
    async () => {
      const viewer = ctx.state.viewer!;
      const issue = form.get('issue_id') ?? '';
      if (issue !== '' && !/^[1-9]\d{0,15}$/.test(issue)) throw new Invalid('issue_id: not a reward code of this program');
      const issueId = issue === '' ? undefined : Number(issue);
      const retried = await inTransaction(ctx.app.context.deps.db, (trx) => retryFailedIssues(trx, viewer.brand.brand_id, viewer.actor, issueId));
      const back = form.get('back') ?? '';
      const page = /^\d{1,18}$/.test(back) ? `/dashboard/advocates/${back}` : '/dashboard/payouts';
      seeOther(ctx, page, { done: 'retried', retried });
    },
    refused,
  );
}

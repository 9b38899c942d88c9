import { z } from 'zod';
import { inTransaction } from '../../core/db/transaction';
import { type BulkAction, type BulkBatchResult, bulkTransitionBatch } from '../../core/rewards/bulk-transitions';
import { approveReward, voidReward } from '../../core/rewards/reward-transitions';
import type { Ctx } from '../app-context';
import { approveRewardSchema, rewardPathSchema, voidRewardSchema } from '../schemas/reward-request';
import { runForm, seeOther } from './form-actions';
import { REWARDS_PAGE, bulkRewardsPage, rewardsPage, voidRewardPage } from './reward-pages';
import { filterParams, postedFilter, rewardFilterOf } from './rewards-query';

/** Rewards moved per transaction by a bulk action, and per request (the page then says more match). */
const BULK_BATCH = 100;
const BULK_MAX_BATCHES = 10;

/** The form fields the API's schemas read: an approval's optional note, a void's required reason (both `reason` there). */
const noteOf = (form: URLSearchParams) => approveRewardSchema.parse({ reason: form.get('note') || undefined }).reason ?? null;
const reasonOf = (form: URLSearchParams) => voidRewardSchema.parse({ reason: form.get('reason') ?? '' }).reason;

/** The list the form was posted from, with the notice of what it did. */
function backToList(ctx: Ctx, form: URLSearchParams, notice: Record<string, string | number>): void {
  seeOther(ctx, REWARDS_PAGE, { ...filterParams(postedFilter(form)), ...notice });
}

/** POST /dashboard/rewards/:id/approve: approveReward (as POST /api/v1/rewards/{id}/approve), as the signed-in user; a refusal shown on its card. */
export async function approveRewardForm(ctx: Ctx, id: string, form: URLSearchParams): Promise<void> {
  let rewardId: number | undefined;
  await runForm(
    ctx,
    form,
    async () => {
      rewardId = rewardPathSchema.parse({ id }).id;
      const note = noteOf(form);
      const { brand, actor } = ctx.state.viewer!;
      await inTransaction(ctx.app.context.deps.db, (trx) => approveReward(trx, brand, { reward_id: rewardId!, actor, reason: note }));
      backToList(ctx, form, { done: 'approved', reward: rewardId });
    },
    (status, message) => {
      ctx.query = filterParams(postedFilter(form));
      return rewardsPage(ctx, { status, message: sentence(message), rewardId });
    },
  );
}

/** POST /dashboard/rewards/:id/void (from its confirmation page): voidReward (as POST /api/v1/rewards/{id}/void); a refusal shown on that page. */
export async function voidRewardForm(ctx: Ctx, id: string, form: URLSearchParams): Promise<void> {
  await runForm(
    ctx,
    form,
    async () => {
      const rewardId = rewardPathSchema.parse({ id }).id;
      const reason = reasonOf(form);
      const { brand, actor } = ctx.state.viewer!;
      await inTransaction(ctx.app.context.deps.db, (trx) => voidReward(trx, brand, { reward_id: rewardId, actor, reason }));
      backToList(ctx, form, { done: 'voided', reward: rewardId });
    },
    (status, message) => {
      ctx.query = filterParams(postedFilter(form));
      return voidRewardPage(ctx, id, { status, message: sentence(message), reason: form.get('reason') ?? '' });
    },
  );
}

const bulkFormSchema = z.object({
  upto: z.coerce.number({ error: 'upto must be a reward id' }).int().min(0, { error: 'upto must be a reward id' }),
  asof: z.iso.datetime({ error: 'asof must be a time', offset: true }).transform((value) => new Date(value)),
});

/**
 * POST /dashboard/rewards/bulk/approve|void (from the confirmation page): every reward of the
 * posted filter the action moves, up to the newest one counted, BULK_BATCH per transaction
 * (bulkTransitionBatch), then the list with what was done and what was skipped, and why.
 */
export async function bulkRewardsForm(ctx: Ctx, action: BulkAction, form: URLSearchParams): Promise<void> {
  await runForm(
    ctx,
    form,
    async () => {
      const { upto, asof } = bulkFormSchema.parse({ upto: form.get('upto') ?? '', asof: form.get('asof') ?? '' });
      const reason = action === 'void' ? reasonOf(form) : noteOf(form);
      const { brand, actor } = ctx.state.viewer!;
      const filter = rewardFilterOf(postedFilter(form));
      const total: Omit<BulkBatchResult, 'next'> = { moved: 0, skipped: { in_review: 0, already_approved: 0, already_voided: 0, paid_out: 0 } };
      let before: number | undefined;
      let batches = 0;
      do {
        const batch = await inTransaction(ctx.app.context.deps.db, (trx) => bulkTransitionBatch(trx, brand, { action, filter, upto, asof, before, limit: BULK_BATCH, actor, reason }));
        total.moved += batch.moved;
        for (const [why, count] of Object.entries(batch.skipped)) total.skipped[why as keyof typeof total.skipped] += count;
        before = batch.next ?? undefined;
        batches += 1;
      } while (before !== undefined && batches < BULK_MAX_BATCHES);
      backToList(ctx, form, { done: action === 'approve' ? 'bulk_approved' : 'bulk_voided', moved: total.moved, ...Object.fromEntries(Object.entries(total.skipped).filter(([, count]) => count > 0)), ...(before !== undefined ? { more: 1 } : {}) });
    },
    (status, message) => {
      ctx.query = { ...filterParams(postedFilter(form)), action };
      return bulkRewardsPage(ctx, { status, message: sentence(message) });
    },
  );
}

/** Core's refusal as a sentence on the page ("reward 12 is already voided" → "Reward 12 is already voided."). */
function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

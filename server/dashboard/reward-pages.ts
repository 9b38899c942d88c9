import { currencyExponent } from '../../core/currency';
import { decimalFromMinor, toMinor } from '../../core/money';
import { countBulk } from '../../core/rewards/bulk-transitions';
import { listRewards } from '../../core/rewards/list-rewards';
import { type RewardDetail, rewardDetails } from '../../core/rewards/reward-details';
import { getReward, toRewardView } from '../../core/rewards/reward-records';
import type { Ctx } from '../app-context';
import { sendCsv } from './csv-export';
import { CSV_MAX_ROWS, PER_PAGE, pathIdOf } from './dashboard-query';
import { countOf, doneOf } from './form-notice';
import { renderPage } from './render-page';
import { STATUS_NAMES, actorWords, bulkNotice, day, entryWords, fulfilmentWords, holdWords, orderStatusWords, reviewWords, statusWords } from './reward-words';
import { type RewardsFilterQuery, filterParams, rewardFilterOf, rewardsFilterSchema, rewardsQuerySchema } from './rewards-query';

export const REWARDS_PAGE = '/dashboard/rewards';
/** Rewards read per query while a CSV is written. */
const CSV_CHUNK = 1_000;

/** A refusal of a form, shown next to it: on the card of `rewardId` when that card is on the page. */
export interface RewardRefusal {
  status: number;
  message: string;
  rewardId?: number;
}

/** An amount as a CSV cell: its currency's decimals, no grouping ("1234.50", "1500"). */
function csvAmount(value: number, currency: string): string {
  const exponent = currencyExponent(currency);
  return decimalFromMinor(toMinor(value, exponent), exponent);
}

/** A reward's card as the views print it: every fact already in words. */
function cardOf(reward: RewardDetail) {
  return {
    ...reward,
    status_words: statusWords(reward),
    fulfilment_words: fulfilmentWords(reward),
    order_status_words: reward.order ? orderStatusWords(reward.order.status) : null,
    review_words: reward.review ? reviewWords(reward.review.status) : null,
    hold_words: holdWords(reward),
    order_day: reward.order ? day(reward.order.created_at) : null,
    refunds: (reward.order?.refunds ?? []).map((refund) => ({ ...refund, day: day(refund.created_at) })),
    history: reward.history.map((entry) => ({ ...entry, words: entryWords(entry.kind), by: actorWords(entry.actor) })),
  };
}
export type RewardCard = ReturnType<typeof cardOf>;

/** The status line after a form (the redirect carries ids and counts, never text). */
function rewardsNotice(ctx: Ctx): string | null {
  const done = doneOf(ctx, ['approved', 'voided', 'bulk_approved', 'bulk_voided']);
  if (done === 'approved' || done === 'voided') {
    const id = countOf(ctx, 'reward');
    return id === null ? null : `Reward ${id} ${done}.`;
  }
  if (!done) return null;
  const skipped = { in_review: countOf(ctx, 'in_review') ?? 0, already_approved: countOf(ctx, 'already_approved') ?? 0, already_voided: countOf(ctx, 'already_voided') ?? 0, paid_out: countOf(ctx, 'paid_out') ?? 0 };
  return bulkNotice(done === 'bulk_approved' ? 'approve' : 'void', countOf(ctx, 'moved') ?? 0, skipped, countOf(ctx, 'more') === 1);
}

/** Every reward the filter matches (at most CSV_MAX_ROWS), a chunk at a time, as a spreadsheet-safe CSV. */
async function rewardsCsv(ctx: Ctx, query: RewardsFilterQuery): Promise<void> {
  const { brand } = ctx.state.viewer!;
  const { db } = ctx.app.context.deps;
  const filter = rewardFilterOf(query);
  const rows: RewardDetail[] = [];
  let cursor: number | undefined;
  do {
    const page = await listRewards(db, brand.brand_id, { ...filter, limit: Math.min(CSV_CHUNK, CSV_MAX_ROWS - rows.length), cursor });
    rows.push(...(await rewardDetails(db, brand, page.rewards, { history: false })));
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined && rows.length < CSV_MAX_ROWS);
  const at = (iso: string | null | undefined) => iso ?? '';
  return sendCsv(ctx, `rewards-${query.status}`, [
    ['reward_id', (r) => r.reward_id],
    ['created_at', (r) => r.created_at],
    ['status', (r) => STATUS_NAMES[r.status]],
    ['amount', (r) => csvAmount(r.amount, r.currency)],
    ['currency', (r) => r.currency],
    ['advocate_id', (r) => r.advocate_id],
    ['advocate_email', (r) => r.advocate.email],
    ['order_id', (r) => r.order?.order_id],
    ['order_date', (r) => at(r.order?.created_at)],
    ['order_value', (r) => (r.order ? csvAmount(r.order.order_value, r.order.currency) : '')],
    ['order_refunded', (r) => (r.order ? csvAmount(r.order.refunded_total, r.order.currency) : '')],
    ['order_currency', (r) => r.order?.currency],
    ['order_status', (r) => (r.order ? orderStatusWords(r.order.status) : '')],
    ['hold_until', (r) => r.hold_until],
    ['approved_at', (r) => at(r.approved_at)],
    ['voided_at', (r) => at(r.voided_at)],
    ['void_reason', (r) => r.void_reason],
    ['paid_out', (r) => csvAmount(r.paid_amount, r.currency)],
    ['review_id', (r) => r.review?.review_id],
    ['review_status', (r) => (r.review ? reviewWords(r.review.status) : '')],
    ['fulfilment', (r) => fulfilmentWords(r)],
  ], rows);
}

/**
 * GET /dashboard/rewards: the brand's rewards, newest first, 25 a page, filtered by status,
 * advocate and period; each a card with its order, hold, review, fulfilment and history, and
 * (for an admin) approve and void; "approve / void all that match". ?format=csv: every match.
 */
export async function rewardsPage(ctx: Ctx, refusal?: RewardRefusal): Promise<void> {
  const query = rewardsQuerySchema.parse(ctx.query);
  if (query.format === 'csv') return rewardsCsv(ctx, query);
  const { brand } = ctx.state.viewer!;
  const { db } = ctx.app.context.deps;
  const filter = rewardFilterOf(query);
  const listed = await listRewards(db, brand.brand_id, { ...filter, limit: PER_PAGE, offset: (query.page - 1) * PER_PAGE });
  const cards = (await rewardDetails(db, brand, listed.rewards, { history: true })).map(cardOf);
  const counts = await countBulk(db, brand.brand_id, filter);
  const params = filterParams(query);
  const cardRefusal = refusal?.rewardId !== undefined && cards.some((card) => card.reward_id === refusal.rewardId);
  renderPage(
    ctx,
    'rewards',
    {
      title: 'Rewards',
      section: REWARDS_PAGE,
      cards,
      query,
      statuses: Object.entries(STATUS_NAMES),
      counts,
      params,
      page: { page: query.page, has_more: listed.has_more },
      period: { preset: query.period },
      days: { from: query.from ?? '', to: query.to ?? '' },
      notice: rewardsNotice(ctx),
      refusal: refusal && !cardRefusal ? refusal.message : null,
      cardRefusal: cardRefusal ? refusal : null,
    },
    refusal?.status,
  );
}

/** GET /dashboard/rewards/:id/void: the confirmation step (works without JavaScript): the reward, a required reason, "Yes, void this reward". */
export async function voidRewardPage(ctx: Ctx, id: string, refusal?: { status: number; message: string; reason?: string }): Promise<void> {
  const rewardId = pathIdOf(id, 'reward');
  const { brand } = ctx.state.viewer!;
  const { db } = ctx.app.context.deps;
  const [reward] = await rewardDetails(db, brand, [toRewardView(await getReward(db, brand.brand_id, rewardId))], { history: true });
  const back = rewardsFilterSchema.safeParse(ctx.query);
  renderPage(
    ctx,
    'reward-void',
    {
      title: `Void reward ${rewardId} · Rewards`,
      section: REWARDS_PAGE,
      card: cardOf(reward!),
      params: back.success ? filterParams(back.data) : {},
      refusal: refusal?.message ?? null,
      reasonError: refusal?.status === 400 ? 'Write why you void this reward: it is kept with the reward and its history.' : null,
      reason: refusal?.reason ?? '',
    },
    refusal?.status,
  );
}

/** GET /dashboard/rewards/bulk?action=approve|void&<filter>: how many the action would move, and its confirmation form. */
export async function bulkRewardsPage(ctx: Ctx, refusal?: { status: number; message: string }): Promise<void> {
  const action = ctx.query.action === 'void' ? 'void' : 'approve';
  const query = rewardsFilterSchema.parse(ctx.query);
  const { brand } = ctx.state.viewer!;
  const counts = await countBulk(ctx.app.context.deps.db, brand.brand_id, rewardFilterOf(query));
  renderPage(
    ctx,
    'rewards-bulk',
    {
      title: `${action === 'approve' ? 'Approve' : 'Void'} rewards · Rewards`,
      section: REWARDS_PAGE,
      action,
      counts,
      query,
      statusName: STATUS_NAMES[query.status],
      params: filterParams(query),
      refusal: refusal?.message ?? null,
      reasonError: refusal?.status === 400 && action === 'void' ? 'Write why you void these rewards: it is kept with each reward and its history.' : null,
    },
    refusal?.status,
  );
}

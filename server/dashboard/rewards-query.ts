import { z } from 'zod';
import { PERIOD_PRESETS } from '../../core/reports/period';
import type { RewardFilter } from '../../core/rewards/list-rewards';
import { REWARD_STATUSES } from '../../core/rewards/reward-status';
import { periodOf, reportQuerySchema } from './dashboard-query';

/**
 * The Rewards page's filter (status, advocate, period) as its query string, its forms' hidden
 * fields and its bulk actions all carry it: parsed here once, into core's RewardFilter.
 */
export const rewardsFilterSchema = reportQuerySchema.pick({ from: true, to: true }).extend({
  status: z.enum(['all', ...REWARD_STATUSES], { error: `status must be all, ${REWARD_STATUSES.join(', ')}` }).default('all'),
  advocate: z.string().trim().max(200, { error: 'advocate (the search) must be at most 200 characters' }).optional(),
  // A work queue: every reward by default, whenever it was earned.
  period: z.enum(['all', ...PERIOD_PRESETS, 'custom'], { error: 'period must be all, 7, 30, 90 or custom' }).default('all'),
});

export const rewardsQuerySchema = rewardsFilterSchema.extend({
  page: reportQuerySchema.shape.page,
  format: reportQuerySchema.shape.format,
});

export type RewardsFilterQuery = z.infer<typeof rewardsFilterSchema>;

/** The filter as core reads it. */
export function rewardFilterOf(query: RewardsFilterQuery): RewardFilter {
  const period = query.period === 'all' ? null : periodOf({ ...query, period: query.period, page: 1, format: 'html' });
  return {
    status: query.status === 'all' ? undefined : query.status,
    advocate: query.advocate || undefined,
    created_from: period?.from,
    created_to: period?.to,
  };
}

/** The filter as the page's links and hidden fields repeat it (empty ones dropped). */
export function filterParams(query: RewardsFilterQuery): Record<string, string> {
  const params: Record<string, string> = { status: query.status, period: query.period };
  if (query.advocate) params.advocate = query.advocate;
  if (query.period === 'custom') {
    if (query.from) params.from = query.from;
    if (query.to) params.to = query.to;
  }
  return params;
}

/** The filter a posted form carries back (its hidden fields): a bad one is the default list, never an error. */
export function postedFilter(form: URLSearchParams): RewardsFilterQuery {
  const parsed = rewardsFilterSchema.safeParse(Object.fromEntries(['status', 'advocate', 'period', 'from', 'to'].flatMap((name) => (form.get(name) === null ? [] : [[name, form.get(name)]]))));
  return parsed.success ? parsed.data : rewardsFilterSchema.parse({});
}

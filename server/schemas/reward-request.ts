import { z } from 'zod';
import { REWARD_STATUSES } from '../../core/rewards/reward-status';
import { requiredText, text } from './fields';

/** A positive integer sent in a path or query string (where everything is text). */
export const idText = (what: string) =>
  z
    .string()
    .regex(/^[1-9]\d{0,15}$/, { error: `must be a positive integer ${what}` })
    .transform(Number);

/** A page size sent in a query string: a whole number from 1 to `max`. */
export const limitText = (max: number) =>
  z
    .string()
    .regex(/^\d+$/, { error: `must be an integer from 1 to ${max}` })
    .transform(Number)
    .refine((limit) => limit >= 1 && limit <= max, { error: `must be an integer from 1 to ${max}` });

/** The path of /api/v1/rewards/{id}. */
export const rewardPathSchema = z.object({ id: idText('reward id') });

/** The path of /api/v1/advocates/{id}/balance. */
export const advocatePathSchema = z.object({ id: idText('advocate id') });

/** GET /api/v1/rewards: filters and paging, from the query string. */
export const listRewardsQuerySchema = z.object({
  status: z.enum(REWARD_STATUSES, { error: `must be one of ${REWARD_STATUSES.join(', ')}` }).optional(),
  advocate_id: idText('advocate id').optional(),
  limit: limitText(100).optional(),
  cursor: idText('reward id (next_cursor of the previous page)').optional(),
});

/** POST /api/v1/rewards/{id}/approve: an optional note. */
export const approveRewardSchema = z.object({ reason: text().optional() });

/** POST /api/v1/rewards/{id}/void: why (required; kept on the reward and its ledger entry). */
export const voidRewardSchema = z.object({ reason: requiredText() });

import { getAdvocate } from '../../core/advocates/advocates';
import { inTransaction } from '../../core/db/transaction';
import { rewardBalance } from '../../core/ledger/reward-ledger';
import { listRewards, rewardWithHistory } from '../../core/rewards/list-rewards';
import { approveReward, voidReward } from '../../core/rewards/reward-transitions';
import type { Ctx } from '../app-context';
import { actorOf } from './api-actor';
import { parseOptionalJsonObject } from '../middleware/json-body';
import { advocatePathSchema, approveRewardSchema, listRewardsQuerySchema, rewardPathSchema, voidRewardSchema } from '../schemas/reward-request';

/** A request to /rewards/{id}: @koa/router puts the path's `id` in `params`. */
type RewardCtx = Ctx & { params: Record<string, string> };

/** GET /api/v1/rewards?status=&advocate_id=&limit=&cursor=: newest first. */
export async function listRewardsRoute(ctx: Ctx): Promise<void> {
  const query = listRewardsQuerySchema.parse(ctx.query);
  const page = await listRewards(ctx.app.context.deps.db, ctx.state.brand!.brand_id, { ...query, limit: query.limit ?? 50 });
  ctx.body = { success: true, data: page.rewards, has_more: page.has_more, next_cursor: page.next_cursor };
}

/** GET /api/v1/rewards/{id}: the reward and its history. */
export async function getRewardRoute(ctx: RewardCtx): Promise<void> {
  const rewardId = rewardPathSchema.parse(ctx.params).id;
  ctx.body = { success: true, data: await rewardWithHistory(ctx.app.context.deps.db, ctx.state.brand!.brand_id, rewardId) };
}

/** POST /api/v1/rewards/{id}/approve. */
export async function approveRewardRoute(ctx: RewardCtx): Promise<void> {
  const rewardId = rewardPathSchema.parse(ctx.params).id;
  const { reason } = approveRewardSchema.parse(parseOptionalJsonObject(ctx.state.rawBody));
  const brand = ctx.state.brand!;
  const reward = await inTransaction(ctx.app.context.deps.db, (trx) => approveReward(trx, brand, { reward_id: rewardId, actor: actorOf(ctx), reason }));
  ctx.body = { success: true, data: reward };
}

/** POST /api/v1/rewards/{id}/void with `{reason}`. */
export async function voidRewardRoute(ctx: RewardCtx): Promise<void> {
  const rewardId = rewardPathSchema.parse(ctx.params).id;
  const { reason } = voidRewardSchema.parse(parseOptionalJsonObject(ctx.state.rawBody));
  const brand = ctx.state.brand!;
  const reward = await inTransaction(ctx.app.context.deps.db, (trx) => voidReward(trx, brand, { reward_id: rewardId, actor: actorOf(ctx), reason }));
  ctx.body = { success: true, data: reward };
}

/** GET /api/v1/advocates/{id}/balance: the advocate's figures (docs/merchants/reward-lifecycle.md), in the brand's currency. */
export async function advocateBalanceRoute(ctx: RewardCtx): Promise<void> {
  const advocateId = advocatePathSchema.parse(ctx.params).id;
  const brand = ctx.state.brand!;
  const db = ctx.app.context.deps.db;
  await getAdvocate(db, brand.brand_id, advocateId);
  ctx.body = { success: true, data: await rewardBalance(db, brand.brand_id, advocateId, brand.allow_pending_redemption) };
}

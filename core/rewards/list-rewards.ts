import type { Executor } from '../db/transaction';
import { amountFromDecimal } from '../money';
import { REWARD_COLUMNS, type RewardRow, type RewardView, getReward, toRewardView } from './reward-records';
import type { RewardStatus } from './reward-status';

export interface ListRewardsQuery {
  status?: RewardStatus;
  advocate_id?: number;
  /** Page size (1-100). */
  limit: number;
  /** The last reward_id of the previous page: the list continues after it (newest first). */
  cursor?: number;
}

export interface RewardPage {
  rewards: RewardView[];
  has_more: boolean;
  /** Pass as `cursor` for the next page; null on the last one. */
  next_cursor: number | null;
}

/** A brand's rewards, newest first, filtered by status and advocate, one page at a time. */
export async function listRewards(db: Executor, brandId: string, query: ListRewardsQuery): Promise<RewardPage> {
  const rows: RewardRow[] = await db('rewards')
    .select(REWARD_COLUMNS)
    .where({ brand_id: brandId })
    .modify((builder) => {
      if (query.status) builder.andWhere({ status: query.status });
      if (query.advocate_id !== undefined) builder.andWhere({ advocate_id: query.advocate_id });
      if (query.cursor !== undefined) builder.andWhere('reward_id', '<', query.cursor);
    })
    .orderBy('reward_id', 'desc')
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit).map(toRewardView);
  const hasMore = rows.length > query.limit;
  return { rewards: page, has_more: hasMore, next_cursor: hasMore ? page[page.length - 1]!.reward_id : null };
}

/** One ledger entry of a reward's history. */
export interface RewardEntry {
  kind: string;
  amount: number;
  actor: string | null;
  reason: string | null;
  created_at: string;
}

/** A reward with its ledger history (every transition, refund and payout share: who, why, when). */
export async function rewardWithHistory(db: Executor, brandId: string, rewardId: number): Promise<RewardView & { history: RewardEntry[] }> {
  const row = await getReward(db, brandId, rewardId);
  const entries: Array<{ kind: string; amount: string; actor: string | null; reason: string | null; created_at: Date }> = await db('reward_ledger')
    .select('kind', 'amount', 'actor', 'reason', 'created_at')
    .where({ brand_id: brandId, reward_id: rewardId })
    .orderBy('entry_id');
  return {
    ...toRewardView(row),
    history: entries.map((entry) => ({
      kind: entry.kind,
      amount: amountFromDecimal(entry.amount),
      actor: entry.actor,
      reason: entry.reason,
      created_at: new Date(entry.created_at).toISOString(),
    })),
  };
}

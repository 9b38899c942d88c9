import type { Knex } from 'knex';
import type { Executor } from '../db/transaction';
import { containsPattern } from '../reports/page';
import { amountFromDecimal } from '../money';
import { REWARD_COLUMNS, type RewardRow, type RewardView, getReward, toRewardView } from './reward-records';
import type { RewardStatus } from './reward-status';

/** Which rewards a list (the API's, the dashboard's page and CSV, a bulk action) is about. */
export interface RewardFilter {
  status?: RewardStatus;
  advocate_id?: number;
  /** The advocate, searched: their id, or part of their email or of one of their codes (any case). */
  advocate?: string;
  /** Created at or after `created_from` and before `created_to` (a report period). */
  created_from?: Date;
  created_to?: Date;
}

export interface ListRewardsQuery extends RewardFilter {
  /** Page size (1-100; the dashboard's CSV reads larger pages). */
  limit: number;
  /** The last reward_id of the previous page: the list continues after it (newest first). */
  cursor?: number;
  /** Rows to skip (the dashboard's numbered pages); `cursor` is the API's way. */
  offset?: number;
}

export interface RewardPage {
  rewards: RewardView[];
  has_more: boolean;
  /** Pass as `cursor` for the next page; null on the last one. */
  next_cursor: number | null;
}

/** The brand's rewards the filter matches, as a query to select from (one definition of "matches" for every list and bulk action). */
export function rewardsMatching(db: Executor, brandId: string, filter: RewardFilter): Knex.QueryBuilder {
  const search = filter.advocate?.trim();
  return db('rewards')
    .where('rewards.brand_id', brandId)
    .modify((builder) => {
      if (filter.status) builder.andWhere('rewards.status', filter.status);
      if (filter.advocate_id !== undefined) builder.andWhere('rewards.advocate_id', filter.advocate_id);
      if (filter.created_from) builder.andWhere('rewards.created_at', '>=', filter.created_from);
      if (filter.created_to) builder.andWhere('rewards.created_at', '<', filter.created_to);
      if (search) {
        const pattern = containsPattern(search.toLowerCase());
        builder.andWhere((who) => {
          if (/^[1-9]\d{0,15}$/.test(search)) who.orWhere('rewards.advocate_id', Number(search));
          who
            .orWhereExists((email) => email.select(db.raw('1')).from('advocates as a').whereRaw('a.brand_id = rewards.brand_id AND a.advocate_id = rewards.advocate_id').andWhere('a.email_normalized', 'like', pattern))
            .orWhereExists((code) => code.select(db.raw('1')).from('referral_codes as rc').whereRaw('rc.brand_id = rewards.brand_id AND rc.advocate_id = rewards.advocate_id').andWhere('rc.code_normalized', 'like', pattern));
        });
      }
    });
}

/** A brand's rewards, newest first, filtered (RewardFilter), one page at a time. */
export async function listRewards(db: Executor, brandId: string, query: ListRewardsQuery): Promise<RewardPage> {
  const rows: RewardRow[] = await rewardsMatching(db, brandId, query)
    .select(REWARD_COLUMNS.map((column) => `rewards.${column}`))
    .modify((builder) => {
      if (query.cursor !== undefined) builder.andWhere('rewards.reward_id', '<', query.cursor);
      if (query.offset) builder.offset(query.offset);
    })
    .orderBy('rewards.reward_id', 'desc')
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

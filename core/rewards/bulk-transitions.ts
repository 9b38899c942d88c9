import type { Knex } from 'knex';
import type { Brand } from '../brands/brand';
import type { Executor } from '../db/transaction';
import type { Actor } from '../ledger/reward-ledger';
import { type RewardFilter, rewardsMatching } from './list-rewards';
import { type RewardRow, isPaid } from './reward-records';
import { approveReward, voidReward } from './reward-transitions';

/**
 * "Approve all" / "Void all" of a filter (the dashboard's Rewards page): the rewards the filter
 * matches that the action can move, in batches, each batch one transaction of the same core calls
 * (and audit entries) as one reward's approval or void. A reward in fraud review is left to its
 * review; one that moved on since the merchant confirmed is skipped and counted with why.
 */

export type BulkAction = 'approve' | 'void';

/** Why a matching reward was not moved. */
export const SKIP_REASONS = ['in_review', 'already_approved', 'already_voided', 'paid_out'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** Null when the action moves the reward; else why not. Early approval moves pending ones; a void, pending and approved ones not paid out. */
function skipReason(row: Pick<RewardRow, 'status' | 'paid_amount'>, action: BulkAction): SkipReason | null {
  if (row.status === 'in_review') return 'in_review';
  if (row.status === 'voided') return 'already_voided';
  if (action === 'approve') return row.status === 'approved' ? 'already_approved' : null;
  return isPaid(row as RewardRow) ? 'paid_out' : null;
}

/** The SQL twin of skipReason's null: the rewards an action would move now. */
function movable(builder: Knex.QueryBuilder, action: BulkAction): Knex.QueryBuilder {
  return action === 'approve'
    ? builder.where('rewards.status', 'pending')
    : builder.where((q) => q.where('rewards.status', 'pending').orWhere((approved) => approved.where('rewards.status', 'approved').andWhere('rewards.paid_amount', 0)));
}

/** What the confirm step shows and carries: how many each action would move, and the moment and newest reward it was counted at. */
export interface BulkCount {
  approve: number;
  void: number;
  /** Matching rewards in fraud review (left to Reviews). */
  in_review: number;
  /** The newest matching reward: a bulk action never reaches past it (a later reward was not counted). */
  upto: number;
  /** The database's clock when counted: a reward changed after it is reported as skipped, with why. */
  asof: string;
}

export async function countBulk(db: Executor, brandId: string, filter: RewardFilter): Promise<BulkCount> {
  const row = await rewardsMatching(db, brandId, filter)
    .select(
      db.raw(`count(*) FILTER (WHERE rewards.status = 'pending')::int AS approve`),
      db.raw(`count(*) FILTER (WHERE rewards.status = 'pending' OR (rewards.status = 'approved' AND rewards.paid_amount = 0))::int AS void`),
      db.raw(`count(*) FILTER (WHERE rewards.status = 'in_review')::int AS in_review`),
      db.raw('coalesce(max(rewards.reward_id), 0) AS upto'),
      db.raw('now() AS asof'),
    )
    .first();
  return { approve: row.approve, void: row.void, in_review: row.in_review, upto: Number(row.upto), asof: new Date(row.asof).toISOString() };
}

export interface BulkBatchInput {
  action: BulkAction;
  filter: RewardFilter;
  /** From countBulk. */
  upto: number;
  asof: Date;
  /** The last reward_id of the previous batch (newest first); none for the first. */
  before?: number;
  limit: number;
  actor: Actor;
  /** The note of an approval (optional), the reason of a void (required). */
  reason?: string | null;
}

export interface BulkBatchResult {
  moved: number;
  skipped: Record<SkipReason, number>;
  /** Pass as `before` for the next batch; null when there is none. */
  next: number | null;
}

/**
 * One batch: up to `limit` rewards, newest first, that the filter matches and the action moves —
 * or that changed after `asof` (moved on since the count: skipped, with why) — locked, then each
 * approved or voided by approveReward / voidReward.
 */
export async function bulkTransitionBatch(trx: Knex.Transaction, brand: Brand, input: BulkBatchInput): Promise<BulkBatchResult> {
  const { status, ...rest } = input.filter;
  const rows: Array<Pick<RewardRow, 'reward_id' | 'status' | 'paid_amount'>> = await rewardsMatching(trx, brand.brand_id, rest)
    .andWhere('rewards.reward_id', '<=', input.upto)
    .modify((builder) => {
      if (input.before !== undefined) builder.andWhere('rewards.reward_id', '<', input.before);
    })
    .andWhere((which) =>
      which
        .where((now) => movable(status ? now.where('rewards.status', status) : now, input.action))
        .orWhere('rewards.updated_at', '>', input.asof),
    )
    .orderBy('rewards.reward_id', 'desc')
    .limit(input.limit)
    .forUpdate()
    .select('rewards.reward_id', 'rewards.status', 'rewards.paid_amount');
  const result: BulkBatchResult = { moved: 0, skipped: { in_review: 0, already_approved: 0, already_voided: 0, paid_out: 0 }, next: null };
  for (const row of rows) {
    const why = skipReason(row, input.action);
    if (why) {
      result.skipped[why] += 1;
      continue;
    }
    const transition = { reward_id: Number(row.reward_id), actor: input.actor, reason: input.reason };
    await (input.action === 'approve' ? approveReward(trx, brand, transition) : voidReward(trx, brand, transition));
    result.moved += 1;
  }
  result.next = rows.length === input.limit ? Number(rows[rows.length - 1]!.reward_id) : null;
  return result;
}

import type { Knex } from 'knex';
import type { Brand } from '../brands/brand';
import type { Executor } from '../db/transaction';
import { NotFound } from '../errors';
import { amountFromDecimal } from '../money';
import type { RewardStatus } from './reward-status';

/** Reads and writes of the rewards table: one reward per credited conversion. */

export interface RewardRow {
  reward_id: string;
  conversion_id: string;
  advocate_id: string;
  amount: string;
  status: RewardStatus;
  hold_until: Date;
  approved_at: Date | null;
  voided_at: Date | null;
  void_reason: string | null;
  paid_amount: string;
  created_at: Date;
}

export const REWARD_COLUMNS = [
  'reward_id',
  'conversion_id',
  'advocate_id',
  'amount',
  'status',
  'hold_until',
  'approved_at',
  'voided_at',
  'void_reason',
  'paid_amount',
  'created_at',
];

/** The API's view of a reward. */
export interface RewardView {
  reward_id: number;
  conversion_id: number;
  advocate_id: number;
  /** The reward as credited when the conversion completed. */
  amount: number;
  status: RewardStatus;
  hold_until: string;
  approved_at: string | null;
  voided_at: string | null;
  void_reason: string | null;
  /** How much of it payouts have paid. */
  paid_amount: number;
  created_at: string;
}

const iso = (value: Date | null) => (value === null ? null : new Date(value).toISOString());

export function toRewardView(row: RewardRow): RewardView {
  return {
    reward_id: Number(row.reward_id),
    conversion_id: Number(row.conversion_id),
    advocate_id: Number(row.advocate_id),
    amount: amountFromDecimal(row.amount),
    status: row.status,
    hold_until: iso(row.hold_until)!,
    approved_at: iso(row.approved_at),
    voided_at: iso(row.voided_at),
    void_reason: row.void_reason,
    paid_amount: amountFromDecimal(row.paid_amount),
    created_at: iso(row.created_at)!,
  };
}

export interface NewRewardOptions {
  /** Create the reward `in_review` (a fraud review decides) instead of `pending`/`approved`. */
  inReview?: boolean;
}

/** The status a brand's new reward starts in. */
export function newRewardStatus(brand: Brand, options: NewRewardOptions = {}): RewardStatus {
  return options.inReview ? 'in_review' : brand.reward_hold_days === 0 ? 'approved' : 'pending';
}

/**
 * The reward of conversions written in the same statement: the body of a CTE over CTE `source`
 * (brand_id, conversion_id, advocate_id, status, referrer_reward_paid, and the reward's
 * reward_status (newRewardStatus) and hold_days) creating one reward per completed conversion with
 * a positive reward, approved at once or held until its hold ends (or in review). Returns what
 * creditNewRewards and queueRewardMail read.
 */
export function insertNewRewards(db: Executor, source: string): Knex.Raw {
  return db.raw(
    `INSERT INTO rewards (brand_id, conversion_id, advocate_id, amount, status, hold_until, approved_at)
     SELECT brand_id, conversion_id, advocate_id, referrer_reward_paid, reward_status, now() + make_interval(days => hold_days),
       CASE WHEN reward_status = 'approved' THEN now() END
     FROM ?? WHERE status = 'completed' AND referrer_reward_paid > 0
     ON CONFLICT (brand_id, conversion_id) DO NOTHING
     RETURNING brand_id, reward_id, conversion_id, advocate_id, amount, status, hold_until`,
    [source],
  );
}

/** The reward, locked for a transition; unknown (or another brand's) → NotFound. */
export async function lockReward(trx: Knex.Transaction, brandId: string, rewardId: number): Promise<RewardRow> {
  const row: RewardRow | undefined = await trx('rewards').select(REWARD_COLUMNS).where({ brand_id: brandId, reward_id: rewardId }).forUpdate().first();
  if (!row) throw new NotFound(`reward ${rewardId} not found`);
  return row;
}

/** The reward of a conversion, locked (a refund takes the conversion's lock first, then this). */
export async function lockRewardOfConversion(trx: Knex.Transaction, brandId: string, conversionId: number): Promise<RewardRow | undefined> {
  return trx('rewards').select(REWARD_COLUMNS).where({ brand_id: brandId, conversion_id: conversionId }).forUpdate().first();
}

export async function getReward(db: Executor, brandId: string, rewardId: number): Promise<RewardRow> {
  const row: RewardRow | undefined = await db('rewards').select(REWARD_COLUMNS).where({ brand_id: brandId, reward_id: rewardId }).first();
  if (!row) throw new NotFound(`reward ${rewardId} not found`);
  return row;
}

export async function setRewardStatus(
  trx: Knex.Transaction,
  brandId: string,
  rewardId: number,
  status: RewardStatus,
  voidReason: string | null = null,
): Promise<RewardRow> {
  const [row]: RewardRow[] = await trx('rewards')
    .where({ brand_id: brandId, reward_id: rewardId })
    .update({
      status,
      updated_at: trx.fn.now(),
      ...(status === 'approved' ? { approved_at: trx.fn.now() } : {}),
      ...(status === 'voided' ? { voided_at: trx.fn.now(), void_reason: voidReason } : {}),
    })
    .returning(REWARD_COLUMNS);
  return row!;
}

export const isPaid = (row: RewardRow) => Number(row.paid_amount) > 0;

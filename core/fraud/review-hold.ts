import type { Knex } from 'knex';
import type { Executor } from '../db/transaction';
import type { Brand } from '../brands/brand';
import { rewardSums } from '../ledger/reward-ledger';
import { currencyExponent } from '../currency';
import type { Minor } from '../money';
import { lockRewardOfConversion } from '../rewards/reward-records';
import { transitionReward } from '../rewards/reward-transitions';

/**
 * How a review holds, releases and rejects a flagged conversion's reward, on the reward lifecycle
 * (docs/merchants/reward-lifecycle.md): a flagged conversion's reward is created `in_review`; approving the
 * review approves the reward (pending until the hold ends, or approved), rejecting it voids it.
 */

/**
 * The CTE body that opens a review for each conversion inserted in the same statement (CTE
 * `source`: brand_id, conversion_id, advocate_id, reasons jsonb) that the rules gave reasons; the
 * others get none. Returns brand_id, conversion_id, review_id.
 */
export function openReviews(db: Executor, source: string): Knex.Raw {
  return db.raw(
    `INSERT INTO referral_reviews (brand_id, conversion_id, advocate_id, reasons)
     SELECT brand_id, conversion_id, advocate_id, reasons FROM ?? WHERE jsonb_array_length(reasons) > 0
     RETURNING brand_id, conversion_id, review_id`,
    [source],
  );
}

/**
 * An approved review releases its reward from review (nothing to do when the order has no reward,
 * or a refund in full already voided it). Returns what became spendable at once (0 while the
 * brand's hold still runs).
 */
export async function releaseHeldReward(trx: Knex.Transaction, brand: Brand, conversionId: number, actor: string, note: string | null): Promise<Minor> {
  const reward = await lockRewardOfConversion(trx, brand.brand_id, conversionId);
  if (!reward || reward.status !== 'in_review') return 0;
  const { reward: approved } = await transitionReward(trx, brand, { reward_id: Number(reward.reward_id), actor, reason: note ?? 'fraud review approved' }, 'approve');
  return approved.status === 'approved' ? (await rewardSums(trx, brand.brand_id, approved.reward_id, currencyExponent(brand.currency))).approved : 0;
}

/** A rejected review voids its reward, which was never spendable. */
export async function rejectHeldReward(trx: Knex.Transaction, brand: Brand, conversionId: number, actor: string, reason: string): Promise<void> {
  const reward = await lockRewardOfConversion(trx, brand.brand_id, conversionId);
  if (!reward || reward.status !== 'in_review') return;
  await transitionReward(trx, brand, { reward_id: Number(reward.reward_id), actor, reason: `fraud review rejected: ${reason}` }, 'void');
}

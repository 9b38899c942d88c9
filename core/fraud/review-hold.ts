import type { Knex } from 'knex';
import { creditNewConversion, creditReward, reverseConversionReward } from '../ledger/reward-ledger';
import { type Cents, centsFromDecimal } from '../money';
import type { FraudReason } from './fraud-rules';

/**
 * Hold, release and reject of a flagged conversion's reward: the one seam to re-point at the
 * reward lifecycle (in_review → pending/approved/voided) when it lands. Until then "held" means the
 * conversion is written without its ledger credit, "release" writes the credit, "reject" writes none.
 */

/**
 * The CTE body that gives a conversion inserted in the same statement (CTE `source`) its reward:
 * the ledger credit, or, when the rules flagged it, an open review instead. Either returns
 * `review_id` (null for a credit).
 */
export function creditOrHold(db: Knex.Transaction, brandId: string, source: string, reasons: FraudReason[]): Knex.Raw {
  if (reasons.length === 0) {
    return db.raw('? RETURNING CAST(NULL AS bigint) AS review_id', [creditNewConversion(db, brandId, source)]);
  }
  return db.raw(
    `INSERT INTO referral_reviews (brand_id, conversion_id, advocate_id, reasons)
     SELECT ?, conversion_id, advocate_id, CAST(? AS jsonb) FROM ?? RETURNING review_id`,
    [brandId, JSON.stringify(reasons), source],
  );
}

/** Whether a conversion's reward is held: it has a review that is not approved (open or rejected). */
export async function isRewardHeld(db: Knex.Transaction, brandId: string, conversionId: number): Promise<boolean> {
  const review = await db('referral_reviews').select('status').where({ brand_id: brandId, conversion_id: conversionId }).first();
  return review !== undefined && review.status !== 'approved';
}

interface HeldConversionRow {
  advocate_id: string;
  status: string;
  order_value: string;
  refunded_total: string;
  referrer_reward_paid: string;
}

/**
 * An approved conversion earns its reward now: the credit, less what its refunds (while it was
 * held) would have reversed, written as the credit and a reversal so later refunds reverse the
 * rest exactly as for any conversion. A `pending` conversion is credited when it completes.
 * Returns the net amount credited.
 */
export async function releaseHeldReward(db: Knex.Transaction, brandId: string, conversionId: number): Promise<Cents> {
  // Locked like a refund locks it: a refund and an approval of one conversion take turns.
  const conversion: HeldConversionRow = await db('conversions')
    .select('advocate_id', 'status', 'order_value', 'refunded_total', 'referrer_reward_paid')
    .where({ brand_id: brandId, conversion_id: conversionId })
    .forUpdate()
    .first();
  if (conversion.status === 'pending') return 0;
  const advocateId = Number(conversion.advocate_id);
  const reward = centsFromDecimal(conversion.referrer_reward_paid);
  if (!(await creditReward(db, { brandId, advocateId, conversionId, amount: reward }))) return 0;
  const refundedTotal = centsFromDecimal(conversion.refunded_total);
  if (refundedTotal === 0) return reward;
  const lastRefund = await db('refunds').where({ brand_id: brandId, conversion_id: conversionId }).max({ refund_pk: 'refund_pk' }).first();
  const reversed = await reverseConversionReward(db, {
    brandId,
    advocateId,
    conversionId,
    refundPk: Number(lastRefund!.refund_pk),
    refundedTotal,
    orderValue: centsFromDecimal(conversion.order_value),
    full: conversion.status === 'refunded',
  });
  return reward - reversed;
}

/** A rejected conversion never earns its reward: nothing was credited, so nothing is undone. */
export async function rejectHeldReward(_db: Knex.Transaction, _brandId: string, _conversionId: number): Promise<void> {
  // The reward lifecycle voids the held reward here; on the ledger alone there is nothing to write.
}

import type { ReviewSummary } from '../fraud/reviews';
import type { RewardStatus } from '../rewards/reward-status';
import type { ConversionView } from '../conversions/conversion-view';
import type { RefundResult } from '../refunds/refund-input';
import type { WebhookEvent } from './emit-event';

/** The data of reward.credited and reward.reversed: one ledger entry of an advocate's reward. */
export interface RewardEventData {
  advocate_id: number;
  conversion_id: number;
  /** What this entry credited (or reversed): a positive amount. */
  amount: number;
  order_id?: string | null;
  referral_code?: string | null;
  /** reward.credited: the reward's status as earned — `pending` (held for the brand's hold period), `in_review` (held by the fraud rules) or `approved` (spendable). */
  reward_status?: RewardStatus;
  /** reward.reversed: the refund that reversed it. */
  refund_id?: string | null;
  /** reward.reversed: the brand's currency (the amounts' and the ledger's). */
  currency?: string;
  /** reward.reversed: what the advocate owes after it (refunds took back more than they had; their next rewards pay it first), else 0. */
  owed?: number;
}

/**
 * conversion.created (the conversion as POST /track/conversion answers it, with its fraud `review`),
 * and reward.credited when the new conversion earned its reward.
 */
export function conversionCreatedEvents(conversion: ConversionView & { review: ReviewSummary | null }, rewardStatus: RewardStatus): WebhookEvent[] {
  const events: WebhookEvent[] = [{ type: 'conversion.created', data: conversion }];
  if (conversion.status === 'completed' && conversion.referrer_reward_paid > 0) events.push(rewardCredited(conversion, rewardStatus));
  return events;
}

/** reward.credited: the advocate earned the conversion's reward (see the lifecycle's statuses, docs/merchants/reward-lifecycle.md). */
export function rewardCredited(conversion: ConversionView, rewardStatus: RewardStatus): WebhookEvent {
  const data: RewardEventData = {
    advocate_id: conversion.advocate_id,
    conversion_id: conversion.conversion_id,
    amount: conversion.referrer_reward_paid,
    order_id: conversion.order_id,
    referral_code: conversion.referral_code,
    reward_status: rewardStatus,
  };
  return { type: 'reward.credited', data };
}

/** conversion.refunded with the refund's result (cumulative amounts), and reward.reversed when it reversed some reward. */
export function refundEvents(refund: RefundResult, advocate: { advocateId: number; orderId: string | null; currency: string; owed: number }): WebhookEvent[] {
  const events: WebhookEvent[] = [{ type: 'conversion.refunded', data: refund }];
  if (refund.reward_reversed > 0 && refund.conversion_id !== null) {
    const data: RewardEventData = {
      advocate_id: advocate.advocateId,
      conversion_id: refund.conversion_id,
      amount: refund.reward_reversed,
      refund_id: refund.refund_id,
      order_id: advocate.orderId,
      currency: advocate.currency,
      owed: advocate.owed,
    };
    events.push({ type: 'reward.reversed', data });
  }
  return events;
}

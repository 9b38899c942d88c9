import type { Brand } from '../brands/brand';
import { currencyCode, currencyExponent } from '../currency';
import type { Executor } from '../db/transaction';
import type { ReviewStatus } from '../fraud/reviews';
import { amountFromDecimal, amountFromMinor, minorFromDecimal } from '../money';
import { type IssueMethod, type IssueState, issueState } from './advocate-issues';
import { issuesOnStore } from './issue-rewards';
import type { RewardEntry } from './list-rewards';
import type { RewardView } from './reward-records';

/**
 * What a merchant needs beside a listed reward to decide on it (the dashboard's Rewards page and
 * its CSV): the advocate, the order and its refunds, its fraud review, how its money reached the
 * advocate, and its ledger history. A few queries per page of rewards, never one per reward.
 */

export interface RewardOrder {
  order_id: string | null;
  /** In the order's own currency, with that currency's decimals. */
  order_value: number;
  currency: string;
  /** completed, pending, partial_refund, refunded (the conversion's status). */
  status: string;
  refunded_total: number;
  created_at: string;
  refunds: Array<{ amount: number; full: boolean; created_at: string }>;
}

/** How the reward's money reached (or will reach) the advocate (docs/merchants/reward-lifecycle.md "Fulfilment"). */
export type RewardFulfilmentState =
  /** Held or in review: nothing is handed out before approval. */
  | { kind: 'not_yet' }
  /** Voided: nothing to hand out. */
  | { kind: 'none' }
  /** Paid by hand through Payouts (all of it, or `paid` of it). */
  | { kind: 'paid'; paid: number }
  /** A `payout` brand's approved reward not paid yet: it is on Payouts. */
  | { kind: 'to_pay' }
  /** A `coupon` brand's: the advocate's first code made at or after its approval. */
  | { kind: 'code'; issue_id: number; method: IssueMethod; code: string; state: IssueState }
  /** A `coupon` brand's approved money not issued yet (below the smallest code, or approved before the switch). */
  | { kind: 'in_balance' };

export interface RewardDetail extends RewardView {
  /** In the brand's currency (every reward is). */
  currency: string;
  advocate: { email: string; first_name: string; last_name: string | null };
  order: RewardOrder | null;
  review: { review_id: number; status: ReviewStatus } | null;
  fulfilment: RewardFulfilmentState;
  /** Every ledger entry of the reward, oldest first; empty unless asked for. */
  history: RewardEntry[];
}

/** The decimals of an order's currency; a code no longer known (old free text) reads as two. */
const exponentOf = (code: string) => {
  const known = currencyCode(code);
  return known === null ? 2 : currencyExponent(known);
};
const inOrderCurrency = (value: string, exponent: number) => amountFromMinor(minorFromDecimal(value, exponent), exponent);
const iso = (value: Date) => new Date(value).toISOString();
const byId = <T extends Record<K, string>, K extends string>(rows: T[], key: K) => new Map(rows.map((row) => [Number(row[key]), row]));

/** The rewards (of one brand, as listRewards returned them) with their details, in the same order. */
export async function rewardDetails(
  db: Executor,
  brand: Pick<Brand, 'brand_id' | 'currency' | 'reward_fulfilment'>,
  rewards: RewardView[],
  options: { history: boolean },
): Promise<RewardDetail[]> {
  if (rewards.length === 0) return [];
  const brandId = brand.brand_id;
  const rewardIds = rewards.map((reward) => reward.reward_id);
  const conversionIds = rewards.map((reward) => reward.conversion_id);
  const advocateIds = [...new Set(rewards.map((reward) => reward.advocate_id))];
  const [advocates, orders, refunds, reviews, issues, entries] = await Promise.all([
    db('advocates').where({ brand_id: brandId }).whereIn('advocate_id', advocateIds).select('advocate_id', 'email', 'first_name', 'last_name'),
    db('conversions')
      .where({ brand_id: brandId })
      .whereIn('conversion_id', conversionIds)
      .select('conversion_id', 'order_id', 'order_value', 'currency', 'status', 'refunded_total', 'created_at'),
    db('refunds').where({ brand_id: brandId }).whereIn('conversion_id', conversionIds).orderBy('refund_pk').select('conversion_id', 'amount', 'is_full_refund', 'created_at'),
    db('referral_reviews').where({ brand_id: brandId }).whereIn('conversion_id', conversionIds).select('conversion_id', 'review_id', 'status'),
    firstIssues(db, brandId, rewards),
    options.history
      ? db('reward_ledger').where({ brand_id: brandId }).whereIn('reward_id', rewardIds).orderBy('entry_id').select('reward_id', 'kind', 'amount', 'actor', 'reason', 'created_at')
      : Promise.resolve([]),
  ]);
  const advocateOf = byId(advocates, 'advocate_id');
  const orderOf = byId(orders, 'conversion_id');
  const reviewOf = byId(reviews, 'conversion_id');
  const issueOf = byId(issues, 'reward_id');
  return rewards.map((reward) => {
    const advocate = advocateOf.get(reward.advocate_id);
    const order = orderOf.get(reward.conversion_id);
    const review = reviewOf.get(reward.conversion_id);
    const issue = issueOf.get(reward.reward_id);
    const currency = order?.currency ?? brand.currency;
    const exponent = exponentOf(currency);
    return {
      ...reward,
      currency: brand.currency,
      advocate: { email: advocate?.email ?? '', first_name: advocate?.first_name ?? '', last_name: advocate?.last_name ?? null },
      order: order
        ? {
            order_id: order.order_id,
            order_value: inOrderCurrency(order.order_value, exponent),
            currency,
            status: order.status,
            refunded_total: inOrderCurrency(order.refunded_total, exponent),
            created_at: iso(order.created_at),
            refunds: refunds
              .filter((refund) => Number(refund.conversion_id) === reward.conversion_id)
              .map((refund) => ({ amount: inOrderCurrency(refund.amount, exponent), full: refund.is_full_refund, created_at: iso(refund.created_at) })),
          }
        : null,
      review: review ? { review_id: Number(review.review_id), status: review.status } : null,
      fulfilment: fulfilmentOf(reward, brand.reward_fulfilment, issue ? { issue_id: Number(issue.issue_id), method: issue.method, code: issue.code, state: issueState(issue) } : null),
      history: entries
        .filter((entry) => Number(entry.reward_id) === reward.reward_id)
        .map((entry) => ({ kind: entry.kind, amount: amountFromDecimal(entry.amount), actor: entry.actor, reason: entry.reason, created_at: iso(entry.created_at) })),
    };
  });
}

/** The one rule from a reward to how it was handed out. */
function fulfilmentOf(reward: RewardView, fulfilment: Brand['reward_fulfilment'], issue: { issue_id: number; method: IssueMethod; code: string; state: IssueState } | null): RewardFulfilmentState {
  if (reward.status === 'voided') return { kind: 'none' };
  if (reward.status !== 'approved') return { kind: 'not_yet' };
  if (reward.paid_amount > 0) return { kind: 'paid', paid: reward.paid_amount };
  if (issue) return { kind: 'code', ...issue };
  return issuesOnStore(fulfilment) ? { kind: 'in_balance' } : { kind: 'to_pay' };
}

/**
 * For each approved reward, the advocate's first reward issue made at or after its approval: the
 * code its money went into (issues are made in the approval's own transaction, or by the next
 * approval that brings the balance to the smallest code).
 */
async function firstIssues(
  db: Executor,
  brandId: string,
  rewards: RewardView[],
): Promise<Array<{ reward_id: string; issue_id: string; method: IssueMethod; code: string; status: string; spent_claim_id: string | null; revoke_reason: string | null }>> {
  const approved = rewards.filter((reward) => reward.status === 'approved' && reward.paid_amount === 0).map((reward) => reward.reward_id);
  if (approved.length === 0) return [];
  const result = await db.raw(
    `SELECT r.reward_id, i.issue_id, i.method, i.code, i.status, i.spent_claim_id, i.revoke_reason
       FROM rewards r
       JOIN LATERAL (SELECT issue_id, method, code, status, spent_claim_id, revoke_reason FROM reward_issues i
                      WHERE i.brand_id = r.brand_id AND i.advocate_id = r.advocate_id AND i.created_at >= r.approved_at
                      ORDER BY i.issue_id LIMIT 1) i ON true
      WHERE r.brand_id = ? AND r.reward_id = ANY(?::bigint[])`,
    [brandId, approved],
  );
  return result.rows;
}

import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit-log';
import type { Brand, RewardFulfilment } from '../brands/brand';
import { Invalid } from '../errors';
import { type Actor, postEntries, reverseReward, rewardSums } from '../ledger/reward-ledger';
import { currencyExponent } from '../currency';
import { enqueueMail } from '../mail/enqueue-mail';
import { type RefundedOrder, rewardMail, rewardReversedMail } from '../mail/program-mail';
import { type Minor, minorFromDecimal } from '../money';
import { type RewardRow, type RewardView, isPaid, lockReward, lockRewardOfConversion, setRewardStatus, toRewardView } from './reward-records';
import { issueApproved, issueSpendable } from './issue-rewards';
import { requestCreditDebits } from './request-credit-debits';
import { lockIssuedAdvocateOfConversion, owedAfterRevoking } from './revoke-issues';
import { type RewardStatus, isHeld, nextStatus } from './reward-status';

/**
 * The reward transitions: each locks the reward row (after the conversion's, for a refund), asks
 * reward-status.ts whether the move is legal, and appends its ledger entries, with who and why.
 */

export interface TransitionInput {
  reward_id: number;
  actor: Actor;
  reason?: string | null;
}

const holdOver = (row: RewardRow) => new Date(row.hold_until).getTime() <= Date.now();

/** Approves a reward: in review → pending (hold not over) or approved; pending → approved (early, for a person). The audit log names `input.actor`. */
export async function approveReward(trx: Knex.Transaction, brand: Brand, input: TransitionInput): Promise<RewardView> {
  return recordTransition(trx, brand, 'reward.approve', input, await transitionReward(trx, brand, input, 'approve'));
}

/** Voids a reward (a reason is required): what it still holds, held or approved, is taken back. The audit log names `input.actor`. */
export async function voidReward(trx: Knex.Transaction, brand: Brand, input: TransitionInput): Promise<RewardView> {
  return recordTransition(trx, brand, 'reward.void', input, await transitionReward(trx, brand, input, 'void'));
}

/**
 * A person's approval or void, without its audit entry: for a change the audit log records as a
 * whole (a fraud review's decision). Returns the status it left and the reward as it is now.
 */
export async function transitionReward(trx: Knex.Transaction, brand: Brand, input: TransitionInput, action: 'approve' | 'void'): Promise<{ was: RewardStatus; reward: RewardView }> {
  const reason = action === 'void' ? input.reason?.trim() : (input.reason ?? null);
  if (action === 'void' && !reason) throw new Invalid('reason is required to void a reward');
  const row = await lockReward(trx, brand.brand_id, input.reward_id);
  const status = nextStatus(input.reward_id, row.status, action === 'approve' ? { action, holdOver: holdOver(row) } : { action, paid: isPaid(row) });
  const moved = await moveTo(trx, brand.brand_id, currencyExponent(brand.currency), row, status, input.actor, reason ?? null);
  if (status === 'approved') await issueSpendable(trx, brand, [Number(row.advocate_id)]);
  return { was: row.status, reward: toRewardView(moved) };
}

async function recordTransition(trx: Knex.Transaction, brand: Brand, action: string, input: TransitionInput, moved: { was: RewardStatus; reward: RewardView }): Promise<RewardView> {
  const reason = input.reason?.trim();
  await recordAudit(trx, {
    brandId: brand.brand_id,
    actor: input.actor,
    action,
    subject: `reward:${input.reward_id}`,
    before: { status: moved.was },
    after: { status: moved.reward.status, ...(reason ? { reason } : {}) },
  });
  return moved.reward;
}

/** Writes a legal transition: the status, the ledger entries that move the reward's money, and the advocate's email. */
async function moveTo(
  trx: Knex.Transaction,
  brandId: string,
  exponent: number,
  row: RewardRow,
  status: RewardStatus,
  actor: Actor,
  reason: string | null,
): Promise<RewardRow> {
  const rewardId = Number(row.reward_id);
  const sums = await rewardSums(trx, brandId, rewardId, exponent);
  const base = { brandId, exponent, advocateId: Number(row.advocate_id), rewardId, conversionId: Number(row.conversion_id), actor, reason };
  if (status === 'approved') {
    // The held remainder becomes approved money: out of the held bucket, into the approved one.
    await postEntries(trx, [
      { ...base, kind: 'release', amount: -sums.held },
      { ...base, kind: 'credit', amount: sums.held },
    ]);
  } else if (status === 'pending') {
    await postEntries(trx, [{ ...base, kind: 'review', amount: 0 }]);
  } else if (status === 'voided') {
    await postEntries(trx, [
      isHeld(row.status) ? { ...base, kind: 'hold_void', amount: -sums.held } : { ...base, kind: 'void', amount: -sums.approved },
    ]);
  }
  // Released from review into its hold: reward_earned; approved: reward_approved (program-mail.ts).
  const mail = rewardMail({ ...base, amount: sums.held, heldUntil: new Date(row.hold_until).toISOString() }, status);
  if (mail) await enqueueMail(trx, [mail]);
  return setRewardStatus(trx, brandId, rewardId, status, status === 'voided' ? reason : null);
}

/**
 * The approval job: approves every pending reward whose hold has ended, `batchSize` at a time,
 * each batch in its own transaction. Rows another process is approving are skipped (SKIP LOCKED),
 * so any number of processes may run it at once and each reward is approved once.
 */
export async function approveDueRewards(db: Knex, { batchSize = 100 } = {}): Promise<{ approved: number }> {
  let approved = 0;
  for (;;) {
    const count = await db.transaction(async (trx) => {
      const due: Array<RewardRow & { brand_id: string; currency: string; reward_fulfilment: RewardFulfilment }> = await trx('rewards')
        .join('brands', 'brands.brand_id', 'rewards.brand_id')
        .select('rewards.brand_id', 'reward_id', 'conversion_id', 'advocate_id', 'rewards.status', 'hold_until', 'brands.currency', 'brands.reward_fulfilment')
        .where({ 'rewards.status': 'pending' })
        .andWhere('hold_until', '<=', trx.fn.now())
        .orderBy('hold_until')
        .limit(batchSize)
        .forUpdate('rewards')
        .skipLocked();
      for (const row of due) {
        const status = nextStatus(Number(row.reward_id), row.status, { action: 'hold_ended' });
        await moveTo(trx, row.brand_id, currencyExponent(row.currency), row, status, 'system', 'hold period ended');
      }
      await issueApproved(trx, due.map((row) => ({ brand: row, advocateId: Number(row.advocate_id) })));
      return due.length;
    });
    approved += count;
    if (count < batchSize) return { approved };
  }
}

export interface RewardRefund {
  conversionId: number;
  refundPk: number;
  /** In the order's currency (only their ratio counts). */
  refundedTotal: Minor;
  orderValue: Minor;
  full: boolean;
  /** The brand's currency's exponent: the reward is in it. */
  exponent: number;
  /** The refunded order, as the advocate's email names it. */
  order: RefundedOrder;
}

/** What a refund did to its conversion's reward: the amount reversed, and what the advocate owes after it. */
export interface RewardReversal {
  reversed: Minor;
  owed: Minor;
}

/**
 * A refund's effect on the conversion's reward (the caller holds the conversion's lock): the
 * pro-rata share leaves the held bucket during the hold, the approved one after; a refund in full
 * during the hold voids the reward. The advocate is told what was taken back and what they owe
 * (reward_reversed) — unless the reward was still in review, never announced to them.
 */
export async function refundReward(trx: Knex.Transaction, brandId: string, refund: RewardRefund): Promise<RewardReversal> {
  await lockIssuedAdvocateOfConversion(trx, brandId, refund.conversionId);
  const row = await lockRewardOfConversion(trx, brandId, refund.conversionId);
  if (!row || row.status === 'voided') return { reversed: 0, owed: 0 };
  const advocateId = Number(row.advocate_id);
  const reversed = await reverseReward(trx, {
    brandId,
    advocateId,
    conversionId: refund.conversionId,
    rewardId: Number(row.reward_id),
    rewardAmount: minorFromDecimal(row.amount, refund.exponent),
    held: isHeld(row.status),
    refundPk: refund.refundPk,
    refundedTotal: refund.refundedTotal,
    orderValue: refund.orderValue,
    full: refund.full,
    exponent: refund.exponent,
  });
  if (refund.full && nextStatus(Number(row.reward_id), row.status, { action: 'refunded_in_full' }) === 'voided') {
    await moveTo(trx, brandId, refund.exponent, row, 'voided', 'system', 'order refunded in full');
  }
  if (reversed === 0) return { reversed, owed: 0 };
  // What the advocate's unspent codes cannot cover stays owed (they are taken back: revoke-issues.ts).
  const owed = await owedAfterRevoking(trx, brandId, advocateId, refund.exponent);
  // What the codes cannot cover is asked of their store credit; it stays owed (and is said so) until debited.
  await requestCreditDebits(trx, brandId, { advocateId, refundPk: refund.refundPk, owed, exponent: refund.exponent });
  if (row.status !== 'in_review') {
    await enqueueMail(trx, [rewardReversedMail({ brandId, advocateId, refundPk: refund.refundPk, amount: reversed, owed, exponent: refund.exponent }, refund.order)]);
  }
  return { reversed, owed };
}

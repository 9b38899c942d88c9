import { Conflict } from '../errors';

/**
 * A reward's life (docs/merchants/reward-lifecycle.md): created `pending` (held for the brand's hold period)
 * or `in_review` (waiting for a fraud review), then `approved` (spendable, payable) or `voided`.
 * Every transition is decided here and nowhere else. The database CHECKs the same list.
 */
export const REWARD_STATUSES = ['in_review', 'pending', 'approved', 'voided'] as const;
export type RewardStatus = (typeof REWARD_STATUSES)[number];

export type RewardEvent =
  /** A person (API key, CLI, review queue) approves: early when the hold is not over. */
  | { action: 'approve'; holdOver: boolean }
  /** The approval job: the hold ended. */
  | { action: 'hold_ended' }
  | { action: 'void'; paid: boolean }
  /** The order was refunded in full. */
  | { action: 'refunded_in_full' };

/** The status a reward moves to on an event; an illegal transition is a Conflict saying why. */
export function nextStatus(rewardId: number, status: RewardStatus, event: RewardEvent): RewardStatus {
  const refuse = (why: string) => new Conflict(`reward ${rewardId} ${why}`);
  switch (event.action) {
    case 'approve':
      if (status === 'in_review') return event.holdOver ? 'approved' : 'pending';
      if (status === 'pending') return 'approved';
      throw refuse(status === 'approved' ? 'is already approved' : 'is voided and cannot be approved');
    case 'hold_ended':
      if (status === 'pending') return 'approved';
      throw refuse(`is ${status}, not pending: its hold cannot end`);
    case 'void':
      if (status === 'in_review' || status === 'pending') return 'voided';
      if (status === 'voided') throw refuse('is already voided');
      if (event.paid) throw refuse('has been paid out and cannot be voided');
      return 'voided';
    case 'refunded_in_full':
      // A held reward of a fully refunded order is voided; an approved one is reversed and stays approved.
      return status === 'in_review' || status === 'pending' ? 'voided' : status;
  }
}

/** Whether the reward's money sits in the held bucket (not spendable yet). */
export function isHeld(status: RewardStatus): boolean {
  return status === 'in_review' || status === 'pending';
}

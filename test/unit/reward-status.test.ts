import { Conflict } from '../../core/errors';
import { type RewardEvent, type RewardStatus, nextStatus } from '../../core/rewards/reward-status';

const move = (status: RewardStatus, event: RewardEvent) => nextStatus(7, status, event);
const refusal = (status: RewardStatus, event: RewardEvent) => {
  try {
    move(status, event);
  } catch (error) {
    expect(error).toBeInstanceOf(Conflict);
    return (error as Error).message;
  }
  throw new Error(`${status} accepted ${JSON.stringify(event)}`);
};

describe('reward state machine', () => {
  it('approves: in review → pending while the hold runs, → approved once it is over; pending → approved', () => {
    expect(move('in_review', { action: 'approve', holdOver: false })).toBe('pending');
    expect(move('in_review', { action: 'approve', holdOver: true })).toBe('approved');
    expect(move('pending', { action: 'approve', holdOver: false })).toBe('approved');
    expect(move('pending', { action: 'approve', holdOver: true })).toBe('approved');
  });

  it('refuses to approve an approved or a voided reward, saying why', () => {
    expect(refusal('approved', { action: 'approve', holdOver: true })).toBe('reward 7 is already approved');
    expect(refusal('voided', { action: 'approve', holdOver: true })).toBe('reward 7 is voided and cannot be approved');
  });

  it('ends the hold of a pending reward only', () => {
    expect(move('pending', { action: 'hold_ended' })).toBe('approved');
    expect(refusal('in_review', { action: 'hold_ended' })).toBe('reward 7 is in_review, not pending: its hold cannot end');
    expect(refusal('approved', { action: 'hold_ended' })).toBe('reward 7 is approved, not pending: its hold cannot end');
    expect(refusal('voided', { action: 'hold_ended' })).toBe('reward 7 is voided, not pending: its hold cannot end');
  });

  it('voids an in-review, pending or unpaid approved reward', () => {
    expect(move('in_review', { action: 'void', paid: false })).toBe('voided');
    expect(move('pending', { action: 'void', paid: false })).toBe('voided');
    expect(move('approved', { action: 'void', paid: false })).toBe('voided');
  });

  it('refuses to void a paid or an already voided reward', () => {
    expect(refusal('approved', { action: 'void', paid: true })).toBe('reward 7 has been paid out and cannot be voided');
    expect(refusal('voided', { action: 'void', paid: false })).toBe('reward 7 is already voided');
  });

  it('voids a held reward whose order is refunded in full, and leaves an approved or voided one as it is', () => {
    expect(move('in_review', { action: 'refunded_in_full' })).toBe('voided');
    expect(move('pending', { action: 'refunded_in_full' })).toBe('voided');
    expect(move('approved', { action: 'refunded_in_full' })).toBe('approved');
    expect(move('voided', { action: 'refunded_in_full' })).toBe('voided');
  });
});

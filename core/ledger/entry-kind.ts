/**
 * The reward ledger's entry kinds (docs/merchants/reward-lifecycle.md). Each kind moves money in one bucket:
 * - held (a pending or in-review reward): `hold` (+ the reward, when created), `hold_reversal`
 *   (− a refund's share during the hold), `release` (− what is left, when approved), `hold_void`
 *   (− what is left, when voided);
 * - approved: `credit` (+ at approval, or at once with no hold), `reversal` (− a refund's share),
 *   `void` (− what is left of an approved, unpaid reward), `payout` (− paid out to the advocate),
 *   `issued` (− handed out as a single-use code, core/rewards/issue-rewards.ts), `credit_debit` (+ what a
 *   debit took back from the advocate's store credit after a refund, core/rewards/record-credit-debit.ts);
 * - spent: `redemption` (− an advocate claim) and `redemption_return` (+ its refund);
 * - `review` (0): an in-review reward passed review and is held until its hold ends.
 * The database CHECKs the same list.
 */
export const LEDGER_ENTRY_KINDS = [
  'credit',
  'reversal',
  'redemption',
  'redemption_return',
  'hold',
  'hold_reversal',
  'release',
  'hold_void',
  'review',
  'void',
  'payout',
  'issued',
  'credit_debit',
] as const;
export type LedgerEntryKind = (typeof LEDGER_ENTRY_KINDS)[number];

/** The kinds whose sum is what an advocate's held (pending and in-review) rewards are worth. */
export const HELD_KINDS: readonly LedgerEntryKind[] = ['hold', 'hold_reversal', 'release', 'hold_void'];

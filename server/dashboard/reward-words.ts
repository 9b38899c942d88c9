import type { LedgerEntryKind } from '../../core/ledger/entry-kind';
import { ENTRY_LABELS } from '../../core/reports/advocates-report';
import type { SkipReason } from '../../core/rewards/bulk-transitions';
import type { RewardDetail } from '../../core/rewards/reward-details';
import type { RewardStatus } from '../../core/rewards/reward-status';
import { formatCount, formatMoney } from './render-page';
import { issueWords } from './reward-code-forms';

/** A reward and its facts in a merchant's words (the Rewards page, its CSV): no status token, no raw actor. */

const dayFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
/** "12 Dec 2026" (UTC, as every dashboard time). */
export const day = (iso: string) => dayFormat.format(new Date(iso));

/** The status filter's choices, and each status's short name. */
export const STATUS_NAMES: Record<RewardStatus | 'all', string> = {
  all: 'All rewards',
  in_review: 'In fraud review',
  pending: 'On hold',
  approved: 'Approved',
  voided: 'Voided',
};

/** The status as a card's heading says it: "On hold until 12 Dec 2026". */
export function statusWords(reward: Pick<RewardDetail, 'status' | 'hold_until' | 'approved_at' | 'voided_at'>): string {
  if (reward.status === 'pending') return `On hold until ${day(reward.hold_until)}`;
  if (reward.status === 'approved') return reward.approved_at ? `Approved ${day(reward.approved_at)}` : 'Approved';
  if (reward.status === 'voided') return reward.voided_at ? `Voided ${day(reward.voided_at)}` : 'Voided';
  return 'In fraud review';
}

/** The hold: running, ended, cut short by an early approval, or moot (voided). */
export function holdWords(reward: Pick<RewardDetail, 'status' | 'hold_until' | 'approved_at'>): string {
  const until = day(reward.hold_until);
  if (reward.status === 'pending' || reward.status === 'in_review') return `Until ${until}`;
  if (reward.status === 'voided') return `Was until ${until}`;
  const early = reward.approved_at !== null && new Date(reward.approved_at) < new Date(reward.hold_until);
  return early ? `Approved early, before ${until}` : `Ended ${until}`;
}

const ORDER_STATUS: Record<string, string> = { completed: 'paid', pending: 'not paid yet', partial_refund: 'partly refunded', refunded: 'refunded in full' };
export const orderStatusWords = (status: string) => ORDER_STATUS[status] ?? status.replace(/_/g, ' ');

const REVIEW_STATUS: Record<string, string> = { open: 'waiting for your decision', approved: 'approved', rejected: 'rejected' };
export const reviewWords = (status: string) => REVIEW_STATUS[status] ?? status;

/** Who made a ledger entry. */
export function actorWords(actor: string | null): string {
  if (actor === null || actor === 'system') return 'automatically';
  const key = /^api_key:(.+)$/.exec(actor);
  return key ? `by API key ${key[1]}` : `by ${actor}`;
}

export const entryWords = (kind: string) => ENTRY_LABELS[kind as LedgerEntryKind] ?? kind.replace(/_/g, ' ');

/** How the reward's money reached the advocate, as a sentence (the page adds its links). */
export function fulfilmentWords(reward: Pick<RewardDetail, 'fulfilment' | 'amount' | 'currency'>): string {
  const f = reward.fulfilment;
  switch (f.kind) {
    case 'not_yet':
      return 'Not yet: it is handed out once approved.';
    case 'none':
      return 'Nothing: the reward is voided.';
    case 'paid':
      return f.paid >= reward.amount ? `Paid out by hand (${formatMoney(f.paid, reward.currency)}).` : `Partly paid out by hand: ${formatMoney(f.paid, reward.currency)} of ${formatMoney(reward.amount, reward.currency)}.`;
    case 'to_pay':
      return 'To pay by hand: it is on Payouts.';
    case 'in_balance':
      return "In the advocate's balance: it becomes a reward code once the balance reaches your smallest code.";
    case 'code':
      return f.method === 'store_credit' ? `In the advocate's store credit: ${issueWords(f)}.` : `In reward code ${f.code}: ${issueWords(f)}.`;
  }
}

export const plural = (count: number, one: string, many: string) => `${formatCount(count)} ${count === 1 ? one : many}`;

const SKIP_WORDS: Record<SkipReason, [string, string]> = {
  in_review: ['is in fraud review (decide it on Reviews)', 'are in fraud review (decide them on Reviews)'],
  already_approved: ['was already approved', 'were already approved'],
  already_voided: ['was already voided', 'were already voided'],
  paid_out: ['has been paid out and cannot be voided', 'have been paid out and cannot be voided'],
};

/** The status line after a bulk action: "Approved 3 rewards. Skipped 1: 1 was already approved." */
export function bulkNotice(action: 'approve' | 'void', moved: number, skipped: Partial<Record<SkipReason, number>>, more: boolean): string {
  const done = `${action === 'approve' ? 'Approved' : 'Voided'} ${plural(moved, 'reward', 'rewards')}.`;
  const reasons = (Object.entries(skipped) as Array<[SkipReason, number]>).filter(([, count]) => count > 0);
  const total = reasons.reduce((sum, [, count]) => sum + count, 0);
  const skips = total === 0 ? '' : ` Skipped ${formatCount(total)}, changed since you confirmed: ${reasons.map(([why, count]) => `${formatCount(count)} ${SKIP_WORDS[why][count === 1 ? 0 : 1]}`).join(', ')}.`;
  return done + skips + (more ? ' More match: confirm again to go on.' : '');
}

import { type Minor, decimalFromMinor } from '../money';
import type { RewardStatus } from '../rewards/reward-status';
import type { MailIntent } from './enqueue-mail';
import type { MailData } from './mail-values';

/**
 * The program emails each change causes (docs/merchants/program-emails.md), as intents for enqueueMail. A
 * cause has one key, so the same fact reported twice, or reached by two paths, writes one message.
 */

/** advocate_welcome: their code and share link, once per advocate. */
export function welcomeMail(brandId: string, advocateId: number): MailIntent {
  return { brandId, template: 'advocate_welcome', dedupeKey: `advocate_welcome:${advocateId}`, advocateId };
}

/**
 * advocate_link_again: their code and share link, for a storefront join of an address that had
 * joined; the key names the UTC day, so joins however many in a day write one.
 */
export function linkAgainMail(brandId: string, advocateId: number, now = new Date()): MailIntent {
  const day = Math.floor(now.getTime() / 86_400_000);
  return { brandId, template: 'advocate_link_again', dedupeKey: `advocate_link_again:${advocateId}:${day}`, advocateId };
}

export interface EarnedReward {
  brandId: string;
  advocateId: number;
  conversionId: number;
  /** What the reward holds now, in the brand's minor units. */
  amount: Minor;
  exponent: number;
  /** When the hold ends (ISO). */
  heldUntil: string;
}

/**
 * What an advocate hears when a reward reaches `status`: held (`pending`) → reward_earned, with the
 * hold's end; spendable (`approved`) → reward_approved; in review or voided: nothing yet.
 */
export function rewardMail(reward: EarnedReward, status: RewardStatus): MailIntent | null {
  if (reward.amount <= 0) return null;
  const data = { amount: decimalFromMinor(reward.amount, reward.exponent) };
  const base = { brandId: reward.brandId, advocateId: reward.advocateId };
  // The same keys as queueRewardMail (enqueue-mail.ts), which writes a new conversion's with it.
  if (status === 'pending') return { ...base, template: 'reward_earned', dedupeKey: `reward_earned:${reward.conversionId}`, data: { ...data, held_until: reward.heldUntil } };
  if (status === 'approved') return { ...base, template: 'reward_approved', dedupeKey: `reward_approved:${reward.conversionId}`, data };
  return null;
}

/** reward_paid: once per payout id. */
export function rewardPaidMail(brandId: string, advocateId: number, payoutId: string, amount: Minor, exponent: number): MailIntent {
  return { brandId, template: 'reward_paid', dedupeKey: `reward_paid:${payoutId}`, advocateId, data: { amount: decimalFromMinor(amount, exponent) } };
}

/** The refunded order a reward_reversed email names: its value in its own currency and when it was recorded. */
export interface RefundedOrder {
  value: string;
  currency: string;
  placedAt: string;
}

/**
 * reward_reversed: a refund took `amount` back from the advocate's reward for `order`; `owed`
 * (above 0) is what they owe after it. Once per refund, so each refund of one order tells once.
 */
export function rewardReversedMail(
  reversal: { brandId: string; advocateId: number; refundPk: number; amount: Minor; owed: Minor; exponent: number },
  order: RefundedOrder,
): MailIntent {
  const money = (minor: Minor) => decimalFromMinor(minor, reversal.exponent);
  return {
    brandId: reversal.brandId,
    template: 'reward_reversed',
    dedupeKey: `reward_reversed:${reversal.refundPk}`,
    advocateId: reversal.advocateId,
    data: {
      amount: money(reversal.amount),
      order_value: order.value,
      order_currency: order.currency,
      order_date: order.placedAt,
      ...(reversal.owed > 0 ? { owed: money(reversal.owed) } : {}),
    },
  };
}

/**
 * reward_issued: the advocate's single-use code for their reward (and when it expires, if it does),
 * or the store credit it became, once per issue; a code that stands in for store credit (no
 * customer account) says so.
 */
export function rewardIssuedMail(
  brandId: string,
  issue: { issueId: number; advocateId: number; amount: string; code: string; method?: 'code' | 'store_credit'; noCustomerAccount?: boolean; expiresAt?: string | null },
): MailIntent {
  const data: MailData =
    issue.method === 'store_credit'
      ? { amount: issue.amount, reward_method: 'store_credit' }
      : {
          amount: issue.amount,
          reward_code: issue.code,
          ...(issue.noCustomerAccount ? { no_customer_account: true } : {}),
          ...(issue.expiresAt ? { expires_at: issue.expiresAt } : {}),
        };
  return { brandId, template: 'reward_issued', dedupeKey: `reward_issued:${issue.issueId}`, advocateId: issue.advocateId, data };
}

/** friend_offer: an advocate referred a friend by email; once per friend and code, however often the claim is made. */
export function friendOfferMail(brandId: string, friend: { email: string; emailNormalized: string }, advocate: { advocateId: number; code: string }): MailIntent {
  return {
    brandId,
    template: 'friend_offer',
    dedupeKey: `friend_offer:${advocate.code.toUpperCase()}:${friend.emailNormalized}`,
    to: friend.email,
    data: { advocate_id: advocate.advocateId, referral_code: advocate.code },
  };
}

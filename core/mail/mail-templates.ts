import type { Brand } from '../brands/brand';

/** The program emails (docs/merchants/program-emails.md), each switched on or off per brand. */
export const MAIL_TEMPLATES = ['advocate_welcome', 'advocate_link_again', 'reward_earned', 'reward_approved', 'reward_paid', 'reward_reversed', 'reward_issued', 'friend_offer', 'reengagement'] as const;
export type MailTemplate = (typeof MAIL_TEMPLATES)[number];

/** The brand setting that switches each template on or off. */
export const TEMPLATE_SWITCH = {
  advocate_welcome: 'email_advocate_welcome',
  advocate_link_again: 'email_advocate_link_again',
  reward_earned: 'email_reward_earned',
  reward_approved: 'email_reward_approved',
  reward_paid: 'email_reward_paid',
  reward_reversed: 'email_reward_reversed',
  reward_issued: 'email_reward_issued',
  friend_offer: 'email_friend_offer',
  reengagement: 'email_reengagement',
} as const satisfies Record<MailTemplate, keyof Brand>;

export function templateOn(brand: Brand, template: MailTemplate): boolean {
  return brand[TEMPLATE_SWITCH[template]];
}

const COMMON = ['brand_name', 'store_url'] as const;
const ADVOCATE = [...COMMON, 'first_name', 'referral_code', 'share_link'] as const;

/** The placeholders (`{{name}}`) each template's subject and body may use; any other is refused when saved. */
export const PLACEHOLDERS: Record<MailTemplate, readonly string[]> = {
  advocate_welcome: [...ADVOCATE, 'friend_offer', 'advocate_reward'],
  advocate_link_again: [...ADVOCATE, 'friend_offer', 'advocate_reward'],
  reward_earned: [...ADVOCATE, 'amount', 'held_until'],
  reward_approved: [...ADVOCATE, 'amount'],
  reward_paid: [...ADVOCATE, 'amount'],
  // owed_note: a sentence saying what the advocate owes, or nothing (its paragraph is then dropped).
  reward_reversed: [...ADVOCATE, 'amount', 'order_value', 'order_date', 'owed_note'],
  // reward_use: how to spend it — the code at checkout, or the store credit when signed in (with why a credit came as a code).
  // expiry_note: when the code expires, or nothing (its paragraph is then dropped).
  reward_issued: [...ADVOCATE, 'amount', 'reward_code', 'reward_use', 'expiry_note'],
  friend_offer: [...COMMON, 'advocate_first_name', 'referral_code', 'share_link', 'friend_offer'],
  reengagement: [...ADVOCATE, 'friend_offer', 'advocate_reward'],
};

/** A template's words: a subject line and a plain-text body (paragraphs separated by a blank line). */
export interface TemplateText {
  subject: string;
  body: string;
}

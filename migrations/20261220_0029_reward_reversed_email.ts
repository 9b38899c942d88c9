import { addProgramTemplate } from './program-template';

// The "a refund took back part of your reward" email (docs/merchants/program-emails.md): a refund
// that takes money back from a reward the advocate was told of tells them, and what they owe.
// Its brand switch, and the outbox's and the brand's own words' lists of templates.
export const { up, down } = addProgramTemplate('reward_reversed', 'email_reward_reversed', {
  program: `'advocate_welcome', 'advocate_link_again', 'reward_earned', 'reward_approved', 'reward_paid', 'friend_offer', 'reengagement'`,
  account: `'merchant_sign_in', 'merchant_invitation'`,
});

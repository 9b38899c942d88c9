import { addProgramTemplate } from './program-template';

// The "here is your link again" email (docs/merchants/program-emails.md): a storefront join of an
// address that already joined answers nothing of theirs and sends its code to the address instead.
// Its brand switch, and the outbox's and the brand's own words' lists of templates.
export const { up, down } = addProgramTemplate('advocate_link_again', 'email_advocate_link_again', {
  program: `'advocate_welcome', 'reward_earned', 'reward_approved', 'reward_paid', 'friend_offer', 'reengagement'`,
  account: `'merchant_sign_in', 'merchant_invitation'`,
});

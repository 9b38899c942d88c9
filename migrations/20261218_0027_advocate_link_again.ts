import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// The "here is your link again" email (docs/merchants/program-emails.md): a storefront join of an
// address that already joined answers nothing of theirs and sends its code to the address instead.
// Its brand switch, and the outbox's and the brand's own words' lists of templates.
const PROGRAM = `'advocate_welcome', 'reward_earned', 'reward_approved', 'reward_paid', 'friend_offer', 'reengagement'`;
const ACCOUNT = `'merchant_sign_in', 'merchant_invitation'`;

const upSql = `
ALTER TABLE brands ADD COLUMN email_advocate_link_again boolean NOT NULL DEFAULT true;
ALTER TABLE mail_messages DROP CONSTRAINT IF EXISTS mail_messages_template_check;
ALTER TABLE mail_messages ADD CONSTRAINT mail_messages_template_check CHECK (template IN (${PROGRAM}, 'advocate_link_again', ${ACCOUNT}));
ALTER TABLE mail_templates DROP CONSTRAINT IF EXISTS mail_templates_template_check;
ALTER TABLE mail_templates ADD CONSTRAINT mail_templates_template_check CHECK (template IN (${PROGRAM}, 'advocate_link_again'));
`;

const downSql = `
DELETE FROM mail_messages WHERE template = 'advocate_link_again';
DELETE FROM mail_templates WHERE template = 'advocate_link_again';
ALTER TABLE mail_messages DROP CONSTRAINT IF EXISTS mail_messages_template_check;
ALTER TABLE mail_messages ADD CONSTRAINT mail_messages_template_check CHECK (template IN (${PROGRAM}, ${ACCOUNT}));
ALTER TABLE mail_templates DROP CONSTRAINT IF EXISTS mail_templates_template_check;
ALTER TABLE mail_templates ADD CONSTRAINT mail_templates_template_check CHECK (template IN (${PROGRAM}));
ALTER TABLE brands DROP COLUMN IF EXISTS email_advocate_link_again;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

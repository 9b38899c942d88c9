import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// The "a refund took back part of your reward" email (docs/merchants/program-emails.md): a refund
// that takes money back from a reward the advocate was told of tells them, and what they owe.
// Its brand switch, and the outbox's and the brand's own words' lists of templates.
const PROGRAM = `'advocate_welcome', 'advocate_link_again', 'reward_earned', 'reward_approved', 'reward_paid', 'friend_offer', 'reengagement'`;
const ACCOUNT = `'merchant_sign_in', 'merchant_invitation'`;

const upSql = `
ALTER TABLE brands ADD COLUMN email_reward_reversed boolean NOT NULL DEFAULT true;
ALTER TABLE mail_messages DROP CONSTRAINT IF EXISTS mail_messages_template_check;
ALTER TABLE mail_messages ADD CONSTRAINT mail_messages_template_check CHECK (template IN (${PROGRAM}, 'reward_reversed', ${ACCOUNT}));
ALTER TABLE mail_templates DROP CONSTRAINT IF EXISTS mail_templates_template_check;
ALTER TABLE mail_templates ADD CONSTRAINT mail_templates_template_check CHECK (template IN (${PROGRAM}, 'reward_reversed'));
`;

const downSql = `
DELETE FROM mail_messages WHERE template = 'reward_reversed';
DELETE FROM mail_templates WHERE template = 'reward_reversed';
ALTER TABLE mail_messages DROP CONSTRAINT IF EXISTS mail_messages_template_check;
ALTER TABLE mail_messages ADD CONSTRAINT mail_messages_template_check CHECK (template IN (${PROGRAM}, ${ACCOUNT}));
ALTER TABLE mail_templates DROP CONSTRAINT IF EXISTS mail_templates_template_check;
ALTER TABLE mail_templates ADD CONSTRAINT mail_templates_template_check CHECK (template IN (${PROGRAM}));
ALTER TABLE brands DROP COLUMN IF EXISTS email_reward_reversed;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// The merchant is told when the program needs them (docs/merchants/merchant-accounts.md "Notifications"):
// a daily digest to owners and admins (on by default, each user may turn it off) and an email as soon
// as a fraud review waits (off by default). Both are account emails in the mail outbox.
// The templates' list is written out, not imported: a landed migration does not change with the code.
const PROGRAM = `'advocate_welcome', 'advocate_link_again', 'reward_earned', 'reward_approved', 'reward_paid', 'reward_reversed', 'friend_offer', 'reengagement', 'reward_issued'`;
const ACCOUNT = `'merchant_sign_in', 'merchant_invitation'`;

const upSql = `
ALTER TABLE merchant_users ADD COLUMN digest_email boolean NOT NULL DEFAULT true;
ALTER TABLE merchant_users ADD COLUMN review_alert_email boolean NOT NULL DEFAULT false;
ALTER TABLE mail_messages DROP CONSTRAINT IF EXISTS mail_messages_template_check;
ALTER TABLE mail_messages ADD CONSTRAINT mail_messages_template_check CHECK (template IN (${PROGRAM}, ${ACCOUNT}, 'merchant_digest', 'merchant_review_alert'));
-- The alert pass looks for reviews opened in the last hour.
CREATE INDEX referral_reviews_open_recent ON referral_reviews (created_at) WHERE status = 'open';
`;

const downSql = `
DROP INDEX IF EXISTS referral_reviews_open_recent;
DELETE FROM mail_messages WHERE template IN ('merchant_digest', 'merchant_review_alert');
ALTER TABLE mail_messages DROP CONSTRAINT IF EXISTS mail_messages_template_check;
ALTER TABLE mail_messages ADD CONSTRAINT mail_messages_template_check CHECK (template IN (${PROGRAM}, ${ACCOUNT}));
ALTER TABLE merchant_users DROP COLUMN IF EXISTS review_alert_email;
ALTER TABLE merchant_users DROP COLUMN IF EXISTS digest_email;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

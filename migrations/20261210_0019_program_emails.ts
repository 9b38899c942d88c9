import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// Program emails (docs/merchants/program-emails.md): each brand's switches, language, sender and store URL;
// the mail outbox (a message row written in the change's own transaction, sent by a worker); the
// merchant's own wording of a template; and the addresses that unsubscribed or bounced.
const upSql = `
ALTER TABLE brands
  ADD COLUMN language text NOT NULL DEFAULT 'en' CHECK (language IN ('en', 'fr', 'de', 'es')),
  ADD COLUMN sender_name text,
  ADD COLUMN store_url text,
  ADD COLUMN email_advocate_welcome boolean NOT NULL DEFAULT true,
  ADD COLUMN email_reward_earned boolean NOT NULL DEFAULT true,
  ADD COLUMN email_reward_approved boolean NOT NULL DEFAULT true,
  ADD COLUMN email_reward_paid boolean NOT NULL DEFAULT true,
  ADD COLUMN email_friend_offer boolean NOT NULL DEFAULT true,
  ADD COLUMN email_reengagement boolean NOT NULL DEFAULT false,
  ADD COLUMN reengagement_days integer NOT NULL DEFAULT 30 CHECK (reengagement_days > 0);

CREATE TABLE mail_messages (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  message_id bigint GENERATED ALWAYS AS IDENTITY,
  template text NOT NULL CHECK (template IN ('advocate_welcome', 'reward_earned', 'reward_approved', 'reward_paid', 'friend_offer', 'reengagement')),
  -- What caused it (the advocate, the conversion, the payout...): one message per cause, however often it is reported.
  dedupe_key text NOT NULL,
  advocate_id bigint,
  recipient text NOT NULL,
  recipient_normalized text NOT NULL,
  -- The facts of the moment it was written (amounts, dates, codes); the words are rendered when it is sent.
  data json NOT NULL,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sending', 'sent', 'failed', 'suppressed')),
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  subject text,
  sent_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, message_id),
  UNIQUE (brand_id, dedupe_key)
);
-- The worker's look-ups: queued messages oldest first, across brands (message_id grows with time);
-- "is an older one to this address still unsent"; sends whose worker stopped.
CREATE INDEX mail_messages_queued ON mail_messages (message_id) WHERE status = 'queued';
CREATE INDEX mail_messages_unsent_by_recipient ON mail_messages (brand_id, recipient_normalized, message_id) WHERE status IN ('queued', 'sending');
CREATE INDEX mail_messages_sending ON mail_messages (next_attempt_at) WHERE status = 'sending';

CREATE TABLE mail_templates (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  template text NOT NULL CHECK (template IN ('advocate_welcome', 'reward_earned', 'reward_approved', 'reward_paid', 'friend_offer', 'reengagement')),
  subject text NOT NULL,
  body text NOT NULL,
  updated_by text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, template)
);

CREATE TABLE mail_suppressions (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  email_normalized text NOT NULL,
  reason text NOT NULL CHECK (reason IN ('unsubscribed', 'bounced')),
  detail text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, email_normalized)
);
`;

const downSql = `
DROP TABLE IF EXISTS mail_suppressions;
DROP TABLE IF EXISTS mail_templates;
DROP TABLE IF EXISTS mail_messages;
ALTER TABLE brands
  DROP COLUMN IF EXISTS language, DROP COLUMN IF EXISTS sender_name, DROP COLUMN IF EXISTS store_url,
  DROP COLUMN IF EXISTS email_advocate_welcome, DROP COLUMN IF EXISTS email_reward_earned, DROP COLUMN IF EXISTS email_reward_approved,
  DROP COLUMN IF EXISTS email_reward_paid, DROP COLUMN IF EXISTS email_friend_offer, DROP COLUMN IF EXISTS email_reengagement,
  DROP COLUMN IF EXISTS reengagement_days;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

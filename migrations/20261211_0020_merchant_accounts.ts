import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// Merchant self-service (docs/merchants/merchant-accounts.md): the people who run a brand's program (each with
// a role), whose sign-in links and sessions now name them; the audit log of what they change; the
// account emails (sign-in link, invitation) in the mail outbox; and advocate imports, processed
// by a worker in chunks that each commit with the import's progress (resumable after a crash).
const upSql = `
-- The friend's offer as a checkout can give it: free shipping besides an amount or percentage off,
-- for a first purchase only, and alone or combined with other discounts.
ALTER TABLE brands DROP CONSTRAINT IF EXISTS brands_referee_discount_type_check;
ALTER TABLE brands ADD CONSTRAINT brands_referee_discount_type_check CHECK (referee_discount_type IN ('fixed', 'percentage', 'free_shipping'));
ALTER TABLE brands
  ADD COLUMN referee_first_purchase_only boolean NOT NULL DEFAULT true,
  ADD COLUMN referee_individual_use boolean NOT NULL DEFAULT false;

CREATE TABLE merchant_users (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  user_id bigint GENERATED ALWAYS AS IDENTITY,
  email text NOT NULL,
  email_normalized text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'viewer')),
  invited_by text,
  last_sign_in_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, user_id),
  UNIQUE (brand_id, email_normalized)
);
-- Sign-in by email looks a person up across every brand they belong to.
CREATE INDEX merchant_users_by_email ON merchant_users (email_normalized);

-- A link or session without a user is the operator's (printed by the CLI): it acts as an owner.
ALTER TABLE dashboard_login_links ADD COLUMN user_id bigint;
ALTER TABLE dashboard_sessions
  ADD COLUMN user_id bigint,
  ADD COLUMN user_agent text,
  ADD COLUMN ip text,
  ADD COLUMN last_seen_at timestamptz;
ALTER TABLE dashboard_login_links ADD FOREIGN KEY (brand_id, user_id) REFERENCES merchant_users (brand_id, user_id) ON DELETE CASCADE;
ALTER TABLE dashboard_sessions ADD FOREIGN KEY (brand_id, user_id) REFERENCES merchant_users (brand_id, user_id) ON DELETE CASCADE;
CREATE INDEX dashboard_login_links_by_user ON dashboard_login_links (brand_id, user_id, created_at);

CREATE TABLE audit_log (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  entry_id bigint GENERATED ALWAYS AS IDENTITY,
  -- Who: a user's email, an API key (api_key:<id>), the Shopify admin's staff member, or the operator.
  actor text NOT NULL,
  action text NOT NULL,
  -- What: "brand", "advocate:12", "api_key:<id>", "user:3"...
  subject text NOT NULL,
  before json,
  after json,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, entry_id)
);

ALTER TABLE mail_messages DROP CONSTRAINT IF EXISTS mail_messages_template_check;
ALTER TABLE mail_messages ADD CONSTRAINT mail_messages_template_check CHECK (template IN (
  'advocate_welcome', 'reward_earned', 'reward_approved', 'reward_paid', 'friend_offer', 'reengagement', 'merchant_sign_in', 'merchant_invitation'));

CREATE TABLE advocate_imports (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  import_id bigint GENERATED ALWAYS AS IDENTITY,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
  total_rows integer NOT NULL CHECK (total_rows >= 0),
  -- How many rows are processed, and the last line processed: each chunk commits its advocates with
  -- these (and deletes its rows), so a restart resumes after the last committed chunk.
  done_rows integer NOT NULL DEFAULT 0 CHECK (done_rows >= 0),
  last_line integer NOT NULL DEFAULT 0,
  created_count integer NOT NULL DEFAULT 0,
  -- Refused lines: [{line, field, reason}], from the upload's checks and the chunks'.
  refused json NOT NULL DEFAULT '[]',
  send_welcome boolean NOT NULL DEFAULT false,
  file_name text,
  created_by text NOT NULL,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  PRIMARY KEY (brand_id, import_id)
);
-- The rows still to create, as checked at upload; a chunk deletes those it worked.
CREATE TABLE advocate_import_rows (
  brand_id uuid NOT NULL,
  import_id bigint NOT NULL,
  line integer NOT NULL,
  email text NOT NULL,
  first_name text NOT NULL,
  last_name text,
  code text,
  PRIMARY KEY (brand_id, import_id, line),
  FOREIGN KEY (brand_id, import_id) REFERENCES advocate_imports (brand_id, import_id) ON DELETE CASCADE
);
CREATE INDEX advocate_imports_unfinished ON advocate_imports (created_at) WHERE status IN ('queued', 'running');
`;

const downSql = `
DROP TABLE IF EXISTS advocate_import_rows, advocate_imports;
DELETE FROM mail_messages WHERE template IN ('merchant_sign_in', 'merchant_invitation');
ALTER TABLE mail_messages DROP CONSTRAINT IF EXISTS mail_messages_template_check;
ALTER TABLE mail_messages ADD CONSTRAINT mail_messages_template_check CHECK (template IN (
  'advocate_welcome', 'reward_earned', 'reward_approved', 'reward_paid', 'friend_offer', 'reengagement'));
DROP TABLE IF EXISTS audit_log;
DROP INDEX IF EXISTS dashboard_login_links_by_user;
ALTER TABLE dashboard_sessions DROP COLUMN IF EXISTS user_id, DROP COLUMN IF EXISTS user_agent, DROP COLUMN IF EXISTS ip, DROP COLUMN IF EXISTS last_seen_at;
ALTER TABLE dashboard_login_links DROP COLUMN IF EXISTS user_id;
DROP TABLE IF EXISTS merchant_users;
ALTER TABLE brands DROP COLUMN IF EXISTS referee_first_purchase_only, DROP COLUMN IF EXISTS referee_individual_use;
UPDATE brands SET referee_discount_type = 'fixed', referee_discount_value = 0 WHERE referee_discount_type = 'free_shipping';
ALTER TABLE brands DROP CONSTRAINT IF EXISTS brands_referee_discount_type_check;
ALTER TABLE brands ADD CONSTRAINT brands_referee_discount_type_check CHECK (referee_discount_type IN ('fixed', 'percentage'));
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

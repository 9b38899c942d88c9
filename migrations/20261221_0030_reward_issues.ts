import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// The advocate's reward handed out to spend (docs/merchants/reward-lifecycle.md "Fulfilment"): a brand's
// choice (payout by hand, or a single-use code on its store) and the smallest spendable balance
// issued; each issue an outbox row written with the `issued` ledger entry that moves its money out
// of the spendable balance, worked by the platform's worker (connectors/shopify/reward-issue-worker.ts).
// The advocate hears of their code by the reward_issued email (a brand switch, on by default).
// The kinds' and templates' lists are written out, not imported: a landed migration does not change with the code.
const PROGRAM = `'advocate_welcome', 'advocate_link_again', 'reward_earned', 'reward_approved', 'reward_paid', 'reward_reversed', 'friend_offer', 'reengagement'`;
const ACCOUNT = `'merchant_sign_in', 'merchant_invitation'`;

const upSql = `
ALTER TABLE brands ADD COLUMN reward_fulfilment text NOT NULL DEFAULT 'payout' CHECK (reward_fulfilment IN ('payout', 'coupon'));
ALTER TABLE brands ADD COLUMN fulfil_min_amount money_amount NOT NULL DEFAULT 0 CHECK (fulfil_min_amount >= 0);
-- A brand already linked to a Shopify shop hands out codes, as a newly linked one does.
UPDATE brands SET reward_fulfilment = 'coupon' WHERE brand_id IN (SELECT brand_id FROM shopify_shops WHERE status = 'installed');
CREATE TABLE reward_issues (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  issue_id bigserial NOT NULL,
  advocate_id bigint NOT NULL,
  amount money_amount NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  code text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'issued', 'failed')),
  -- The platform's id of what was made (a Shopify discount node), once issued.
  platform_id text,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  issued_at timestamptz,
  -- The advocate claim a paid order that used the code was recorded as (core/claims/reward-code-claim.ts).
  spent_claim_id bigint,
  PRIMARY KEY (brand_id, issue_id),
  FOREIGN KEY (brand_id, advocate_id) REFERENCES advocates (brand_id, advocate_id) ON DELETE CASCADE,
  UNIQUE (brand_id, code)
);
CREATE INDEX reward_issues_due ON reward_issues (next_attempt_at) WHERE status <> 'issued';
-- A refund of an order that only spent a reward code finds its advocate claim by the order.
CREATE INDEX claims_advocate_by_order ON claims (brand_id, order_id) WHERE type = 'advocate' AND order_id IS NOT NULL;
ALTER TABLE reward_ledger ADD COLUMN issue_id bigint;
-- An issue moves its money onto the code once, and back (when the code is spent) once.
CREATE UNIQUE INDEX reward_ledger_one_issue_entry ON reward_ledger (brand_id, issue_id) WHERE kind = 'issued' AND amount < 0;
CREATE UNIQUE INDEX reward_ledger_one_issue_return ON reward_ledger (brand_id, issue_id) WHERE kind = 'issued' AND amount > 0;
ALTER TABLE reward_ledger DROP CONSTRAINT reward_ledger_kind_check;
ALTER TABLE reward_ledger ADD CONSTRAINT reward_ledger_kind_check CHECK (kind IN (
  'credit', 'reversal', 'redemption', 'redemption_return',
  'hold', 'hold_reversal', 'release', 'hold_void', 'review', 'void', 'payout', 'issued'));
ALTER TABLE brands ADD COLUMN email_reward_issued boolean NOT NULL DEFAULT true;
ALTER TABLE mail_messages DROP CONSTRAINT IF EXISTS mail_messages_template_check;
ALTER TABLE mail_messages ADD CONSTRAINT mail_messages_template_check CHECK (template IN (${PROGRAM}, 'reward_issued', ${ACCOUNT}));
ALTER TABLE mail_templates DROP CONSTRAINT IF EXISTS mail_templates_template_check;
ALTER TABLE mail_templates ADD CONSTRAINT mail_templates_template_check CHECK (template IN (${PROGRAM}, 'reward_issued'));
`;

const downSql = `
DELETE FROM mail_messages WHERE template = 'reward_issued';
DELETE FROM mail_templates WHERE template = 'reward_issued';
ALTER TABLE mail_messages DROP CONSTRAINT IF EXISTS mail_messages_template_check;
ALTER TABLE mail_messages ADD CONSTRAINT mail_messages_template_check CHECK (template IN (${PROGRAM}, ${ACCOUNT}));
ALTER TABLE mail_templates DROP CONSTRAINT IF EXISTS mail_templates_template_check;
ALTER TABLE mail_templates ADD CONSTRAINT mail_templates_template_check CHECK (template IN (${PROGRAM}));
ALTER TABLE brands DROP COLUMN IF EXISTS email_reward_issued;
DELETE FROM reward_ledger WHERE kind = 'issued';
ALTER TABLE reward_ledger DROP CONSTRAINT reward_ledger_kind_check;
ALTER TABLE reward_ledger ADD CONSTRAINT reward_ledger_kind_check CHECK (kind IN (
  'credit', 'reversal', 'redemption', 'redemption_return',
  'hold', 'hold_reversal', 'release', 'hold_void', 'review', 'void', 'payout'));
DROP INDEX IF EXISTS reward_ledger_one_issue_entry;
DROP INDEX IF EXISTS reward_ledger_one_issue_return;
ALTER TABLE reward_ledger DROP COLUMN IF EXISTS issue_id;
DROP INDEX IF EXISTS claims_advocate_by_order;
DROP TABLE IF EXISTS reward_issues;
ALTER TABLE brands DROP COLUMN IF EXISTS fulfil_min_amount;
ALTER TABLE brands DROP COLUMN IF EXISTS reward_fulfilment;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

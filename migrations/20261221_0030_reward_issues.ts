import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// The advocate's reward handed out to spend (docs/merchants/reward-lifecycle.md "Fulfilment"): a brand's
// choice (payout by hand, or a single-use code on its store) and the smallest spendable balance
// issued; each issue an outbox row written with the `issued` ledger entry that moves its money out
// of the spendable balance, worked by the platform's worker (connectors/shopify/reward-issue-worker.ts).
// The kinds' list is written out, not imported: a landed migration does not change with the code.
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
  PRIMARY KEY (brand_id, issue_id),
  FOREIGN KEY (brand_id, advocate_id) REFERENCES advocates (brand_id, advocate_id) ON DELETE CASCADE,
  UNIQUE (brand_id, code)
);
CREATE INDEX reward_issues_due ON reward_issues (next_attempt_at) WHERE status <> 'issued';
ALTER TABLE reward_ledger ADD COLUMN issue_id bigint;
CREATE UNIQUE INDEX reward_ledger_one_issue_entry ON reward_ledger (brand_id, issue_id) WHERE kind = 'issued';
ALTER TABLE reward_ledger DROP CONSTRAINT reward_ledger_kind_check;
ALTER TABLE reward_ledger ADD CONSTRAINT reward_ledger_kind_check CHECK (kind IN (
  'credit', 'reversal', 'redemption', 'redemption_return',
  'hold', 'hold_reversal', 'release', 'hold_void', 'review', 'void', 'payout', 'issued'));
`;

const downSql = `
DELETE FROM reward_ledger WHERE kind = 'issued';
ALTER TABLE reward_ledger DROP CONSTRAINT reward_ledger_kind_check;
ALTER TABLE reward_ledger ADD CONSTRAINT reward_ledger_kind_check CHECK (kind IN (
  'credit', 'reversal', 'redemption', 'redemption_return',
  'hold', 'hold_reversal', 'release', 'hold_void', 'review', 'void', 'payout'));
DROP INDEX IF EXISTS reward_ledger_one_issue_entry;
ALTER TABLE reward_ledger DROP COLUMN IF EXISTS issue_id;
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

import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// The reward lifecycle (docs/merchants/reward-lifecycle.md): one `rewards` row per credited conversion, held
// (pending) for the brand's hold period, then approved, paid out or voided. Every transition is a
// ledger entry of its own kind, saying who did it and why. Credits recorded before this migration
// were spendable at once: they become approved rewards, so old data keeps its meaning.
const upSql = `
ALTER TABLE brands ADD COLUMN reward_hold_days integer NOT NULL DEFAULT 30 CHECK (reward_hold_days >= 0);
ALTER TABLE brands ADD COLUMN allow_pending_redemption boolean NOT NULL DEFAULT false;

CREATE TABLE rewards (
  brand_id uuid NOT NULL,
  reward_id bigint GENERATED ALWAYS AS IDENTITY,
  conversion_id bigint NOT NULL,
  advocate_id bigint NOT NULL,
  amount numeric(14,2) NOT NULL CHECK (amount > 0),
  status text NOT NULL CHECK (status IN ('in_review', 'pending', 'approved', 'voided')),
  hold_until timestamptz NOT NULL,
  approved_at timestamptz,
  voided_at timestamptz,
  void_reason text,
  paid_amount numeric(14,2) NOT NULL DEFAULT 0 CHECK (paid_amount >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, reward_id),
  UNIQUE (brand_id, conversion_id),
  FOREIGN KEY (brand_id, advocate_id) REFERENCES advocates (brand_id, advocate_id) ON DELETE CASCADE
);
CREATE INDEX rewards_due ON rewards (hold_until) WHERE status = 'pending';
CREATE INDEX rewards_by_advocate ON rewards (brand_id, advocate_id, status);
CREATE INDEX rewards_by_status ON rewards (brand_id, status, reward_id);

ALTER TABLE reward_ledger ADD COLUMN reward_id bigint;
ALTER TABLE reward_ledger ADD COLUMN payout_id text;
ALTER TABLE reward_ledger ADD COLUMN actor text;
ALTER TABLE reward_ledger ADD COLUMN reason text;
ALTER TABLE reward_ledger DROP CONSTRAINT reward_ledger_kind_check;
ALTER TABLE reward_ledger ADD CONSTRAINT reward_ledger_kind_check CHECK (kind IN (
  'credit', 'reversal', 'redemption', 'redemption_return',
  'hold', 'hold_reversal', 'release', 'hold_void', 'review', 'void', 'payout'));
-- A payout id (a row of a mark-paid file) is recorded once per brand.
CREATE UNIQUE INDEX reward_ledger_one_payout_per_id ON reward_ledger (brand_id, payout_id) WHERE kind = 'payout';
CREATE INDEX reward_ledger_by_reward ON reward_ledger (brand_id, reward_id) WHERE reward_id IS NOT NULL;

INSERT INTO rewards (brand_id, conversion_id, advocate_id, amount, status, hold_until, approved_at, created_at, updated_at)
SELECT brand_id, conversion_id, advocate_id, amount, 'approved', created_at, created_at, created_at, created_at
FROM reward_ledger WHERE kind = 'credit' AND amount > 0;

UPDATE reward_ledger l SET reward_id = r.reward_id
FROM rewards r
WHERE l.brand_id = r.brand_id AND l.conversion_id = r.conversion_id AND l.kind IN ('credit', 'reversal');
`;

const downSql = `
DELETE FROM reward_ledger WHERE kind NOT IN ('credit', 'reversal', 'redemption', 'redemption_return');
DROP INDEX IF EXISTS reward_ledger_by_reward;
DROP INDEX IF EXISTS reward_ledger_one_payout_per_id;
ALTER TABLE reward_ledger DROP CONSTRAINT reward_ledger_kind_check;
ALTER TABLE reward_ledger ADD CONSTRAINT reward_ledger_kind_check CHECK (kind IN ('credit', 'reversal', 'redemption', 'redemption_return'));
ALTER TABLE reward_ledger DROP COLUMN IF EXISTS reason;
ALTER TABLE reward_ledger DROP COLUMN IF EXISTS actor;
ALTER TABLE reward_ledger DROP COLUMN IF EXISTS payout_id;
ALTER TABLE reward_ledger DROP COLUMN IF EXISTS reward_id;
DROP TABLE IF EXISTS rewards;
ALTER TABLE brands DROP COLUMN IF EXISTS allow_pending_redemption;
ALTER TABLE brands DROP COLUMN IF EXISTS reward_hold_days;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// Taking store credit back after a refund (docs/merchants/shopify.md "Store credit"): a refund that
// leaves the advocate owing after their codes writes a debit request on their credited issues, newest
// first; the platform's worker debits what the account still holds and returns it to the balance as a
// `credit_debit` ledger entry (a second refund may debit one issue again, so not `issued`, whose return
// is once per issue). `sent_at` and `sent_amount` are committed before the debit is sent: a retry looks
// for that debit first. The kinds' list is written out, not imported: a landed migration does not change with the code.
const KINDS = `'credit', 'reversal', 'redemption', 'redemption_return',
  'hold', 'hold_reversal', 'release', 'hold_void', 'review', 'void', 'payout', 'issued'`;

const upSql = `
CREATE TABLE reward_credit_debits (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  debit_id bigserial NOT NULL,
  issue_id bigint NOT NULL,
  advocate_id bigint NOT NULL,
  -- The refund that asked for it.
  refund_pk bigint,
  amount money_amount NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'failed', 'done')),
  -- What the account gave (0 when it held nothing), and Shopify's debit transaction, once done.
  debited money_amount CHECK (debited >= 0 AND debited <= amount),
  platform_id text,
  sent_at timestamptz,
  sent_amount money_amount CHECK (sent_amount > 0),
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  done_at timestamptz,
  PRIMARY KEY (brand_id, debit_id),
  FOREIGN KEY (brand_id, issue_id) REFERENCES reward_issues (brand_id, issue_id) ON DELETE CASCADE,
  FOREIGN KEY (brand_id, advocate_id) REFERENCES advocates (brand_id, advocate_id) ON DELETE CASCADE,
  CONSTRAINT reward_credit_debits_done_debited CHECK ((status = 'done') = (debited IS NOT NULL))
);
CREATE INDEX reward_credit_debits_due ON reward_credit_debits (next_attempt_at) WHERE status IN ('pending', 'failed');
CREATE INDEX reward_credit_debits_by_issue ON reward_credit_debits (brand_id, issue_id);
ALTER TABLE reward_ledger DROP CONSTRAINT reward_ledger_kind_check;
ALTER TABLE reward_ledger ADD CONSTRAINT reward_ledger_kind_check CHECK (kind IN (${KINDS}, 'credit_debit'));
`;

const downSql = `
DELETE FROM reward_ledger WHERE kind = 'credit_debit';
ALTER TABLE reward_ledger DROP CONSTRAINT reward_ledger_kind_check;
ALTER TABLE reward_ledger ADD CONSTRAINT reward_ledger_kind_check CHECK (kind IN (${KINDS}));
DROP TABLE IF EXISTS reward_credit_debits;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// Taking an unspent reward code back (docs/merchants/reward-lifecycle.md "Fulfilment"): a refund
// that leaves the advocate owing, or the code's expiry, marks it `revoking` (with why); the
// platform's worker removes it from the store and returns its money (`revoked`, replaced_by the
// code for what is left), unless the store says it was used first (`used`). The brand's optional
// expiry (reward_code_expiry_days, bounded as the brand schema bounds days) sets each issue's expires_at.
const STATUSES = `'pending', 'issued', 'failed'`;

const upSql = `
ALTER TABLE reward_issues DROP CONSTRAINT IF EXISTS reward_issues_status_check;
ALTER TABLE reward_issues ADD CONSTRAINT reward_issues_status_check CHECK (status IN (${STATUSES}, 'revoking', 'revoked', 'used'));
ALTER TABLE reward_issues ADD COLUMN revoke_reason text CHECK (revoke_reason IN ('refund', 'expired'));
ALTER TABLE reward_issues ADD CONSTRAINT reward_issues_revoke_reason_given CHECK (status NOT IN ('revoking', 'revoked') OR revoke_reason IS NOT NULL);
ALTER TABLE reward_issues ADD COLUMN expires_at timestamptz;
ALTER TABLE reward_issues ADD COLUMN revoked_at timestamptz;
-- The issue that carries what was left when this one was taken back (none when nothing was).
ALTER TABLE reward_issues ADD COLUMN replaced_by bigint;
DROP INDEX IF EXISTS reward_issues_due;
CREATE INDEX reward_issues_due ON reward_issues (next_attempt_at) WHERE status IN ('pending', 'failed', 'revoking');
CREATE INDEX reward_issues_expiring ON reward_issues (expires_at) WHERE status IN (${STATUSES}) AND spent_claim_id IS NULL AND expires_at IS NOT NULL;
ALTER TABLE brands ADD COLUMN reward_code_expiry_days integer CHECK (reward_code_expiry_days BETWEEN 1 AND 3650);
`;

const downSql = `
ALTER TABLE brands DROP COLUMN IF EXISTS reward_code_expiry_days;
DROP INDEX IF EXISTS reward_issues_expiring;
DROP INDEX IF EXISTS reward_issues_due;
CREATE INDEX reward_issues_due ON reward_issues (next_attempt_at) WHERE status <> 'issued';
ALTER TABLE reward_issues DROP CONSTRAINT IF EXISTS reward_issues_revoke_reason_given;
-- A code taken back has no place in the older states: its ledger entries (out, then back) sum to nothing.
DELETE FROM reward_issues WHERE status = 'revoked';
UPDATE reward_issues SET status = 'issued' WHERE status IN ('revoking', 'used');
ALTER TABLE reward_issues DROP COLUMN IF EXISTS replaced_by, DROP COLUMN IF EXISTS revoked_at, DROP COLUMN IF EXISTS expires_at, DROP COLUMN IF EXISTS revoke_reason;
ALTER TABLE reward_issues DROP CONSTRAINT IF EXISTS reward_issues_status_check;
ALTER TABLE reward_issues ADD CONSTRAINT reward_issues_status_check CHECK (status IN (${STATUSES}));
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// A refunded advocate claim gives the redeemed reward back: a ledger entry of its own kind, so
// the ledger stays append-only and a balance is still credits − reversals − (redemptions − returns).
const upSql = `
ALTER TABLE reward_ledger DROP CONSTRAINT reward_ledger_kind_check;
ALTER TABLE reward_ledger ADD CONSTRAINT reward_ledger_kind_check CHECK (kind IN ('credit', 'reversal', 'redemption', 'redemption_return'));
`;

const downSql = `
DELETE FROM reward_ledger WHERE kind = 'redemption_return';
ALTER TABLE reward_ledger DROP CONSTRAINT reward_ledger_kind_check;
ALTER TABLE reward_ledger ADD CONSTRAINT reward_ledger_kind_check CHECK (kind IN ('credit', 'reversal', 'redemption'));
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// An advocate claim redeems the advocate's reward: the redemption entry names its claim, once.
// A visit keeps the code the device keeps (for attribution) and the code actually clicked.
const upSql = `
ALTER TABLE reward_ledger ADD COLUMN claim_id bigint;
CREATE UNIQUE INDEX reward_ledger_one_redemption_per_claim ON reward_ledger (brand_id, claim_id) WHERE kind = 'redemption';
ALTER TABLE visits ADD COLUMN clicked_code text;
`;

const downSql = `
ALTER TABLE visits DROP COLUMN IF EXISTS clicked_code;
DROP INDEX IF EXISTS reward_ledger_one_redemption_per_claim;
ALTER TABLE reward_ledger DROP COLUMN IF EXISTS claim_id;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// A refund sums one conversion's credit and reversals (record-refund.ts). The only index on
// conversion_id covered credits alone, so that sum scanned the whole ledger: a refund's cost grew
// with every conversion ever recorded.
const upSql = `
CREATE INDEX reward_ledger_by_conversion ON reward_ledger (brand_id, conversion_id);
`;

const downSql = `
DROP INDEX IF EXISTS reward_ledger_by_conversion;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

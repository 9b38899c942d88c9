import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// The rewards table (0012) was written before money columns became money_amount (0014): a KWD
// brand's reward has 3 decimals and a CLF one 4, so its amounts take the same domain as the ledger.
const upSql = `
ALTER TABLE rewards ALTER COLUMN amount TYPE money_amount, ALTER COLUMN paid_amount TYPE money_amount;
ALTER TABLE rewards ALTER COLUMN paid_amount SET DEFAULT 0.00;
`;

const downSql = `
ALTER TABLE rewards ALTER COLUMN amount TYPE numeric(14,2), ALTER COLUMN paid_amount TYPE numeric(14,2);
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

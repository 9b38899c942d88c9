import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// Deactivating an advocate (docs/development/decisions.md, *Deactivated advocates*): their codes stop
// attributing new orders, visits and claims; their history and earned rewards stay.
const upSql = `
ALTER TABLE advocates
  ADD COLUMN status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deactivated')),
  ADD COLUMN deactivated_at timestamptz;
`;

const downSql = `
ALTER TABLE advocates DROP COLUMN IF EXISTS deactivated_at, DROP COLUMN IF EXISTS status;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// When an advocate or their codes last changed, for GET /api/v1/advocates?updated_since= (the
// Medusa plugin pulls the codes it provisions as promotions; docs/development/decisions.md, *Referral codes as
// Medusa promotions*). Existing rows take their enrolment time; every change sets it to now().
const upSql = `
ALTER TABLE advocates ADD COLUMN updated_at timestamptz;
UPDATE advocates SET updated_at = created_at;
ALTER TABLE advocates ALTER COLUMN updated_at SET DEFAULT now(), ALTER COLUMN updated_at SET NOT NULL;
CREATE INDEX advocates_brand_updated_at ON advocates (brand_id, updated_at);
`;

const downSql = `
DROP INDEX IF EXISTS advocates_brand_updated_at;
ALTER TABLE advocates DROP COLUMN IF EXISTS updated_at;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

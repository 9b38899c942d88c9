import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// A brand's Medusa store, linked when its plugin first pulls reward issues (connectors/medusa/medusa-link.ts):
// the first link makes the brand hand out rewards as codes, as a first Shopify link does, and only a
// plugin that pulls them can make them promotions — so a brand is linked by that pull, never before.
const upSql = `
CREATE TABLE medusa_stores (
  brand_id uuid PRIMARY KEY REFERENCES brands (brand_id) ON DELETE CASCADE,
  linked_at timestamptz NOT NULL DEFAULT now()
);
`;

const downSql = `DROP TABLE IF EXISTS medusa_stores;`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

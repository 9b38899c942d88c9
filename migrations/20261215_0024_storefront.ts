import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// The storefront (docs/merchants/storefront.md): the origins allowed to call the service with the brand's
// publishable key from a browser (CORS), and when an advocate who joined on the store consented.
const upSql = `
ALTER TABLE brands ADD COLUMN allowed_origins text[] NOT NULL DEFAULT '{}';
ALTER TABLE advocates ADD COLUMN consent_at timestamptz;
`;

const downSql = `
ALTER TABLE advocates DROP COLUMN IF EXISTS consent_at;
ALTER TABLE brands DROP COLUMN IF EXISTS allowed_origins;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

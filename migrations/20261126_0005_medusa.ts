import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// Every order snapshot the Medusa plugin delivered, by its event id: a repeated delivery answers
// with the stored outcome and changes nothing. Written in the same transaction as its effects.
const upSql = `
CREATE TABLE medusa_deliveries (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  event_id text NOT NULL,
  event_name text NOT NULL,
  order_id text NOT NULL,
  outcome jsonb NOT NULL DEFAULT '{}',
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, event_id)
);
CREATE INDEX medusa_deliveries_by_order ON medusa_deliveries (brand_id, order_id, received_at);
`;

const downSql = `
DROP TABLE IF EXISTS medusa_deliveries;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

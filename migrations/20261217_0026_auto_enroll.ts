import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// Every paying customer an advocate (docs/merchants/storefront.md, "Enrolling paying customers"): a brand's
// switch, and the enrolments a paid order asks for, written in its own transaction (an outbox: one
// row per brand and address, however many orders they pay) and created by the advocates worker.
const upSql = `
ALTER TABLE brands ADD COLUMN auto_enroll_customers boolean NOT NULL DEFAULT false;
CREATE TABLE advocate_enrollments (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  email_normalized text NOT NULL,
  email text NOT NULL,
  first_name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, email_normalized)
);
`;

const downSql = `
DROP TABLE IF EXISTS advocate_enrollments;
ALTER TABLE brands DROP COLUMN IF EXISTS auto_enroll_customers;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

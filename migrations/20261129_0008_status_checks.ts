import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// Statuses and kinds the code knows as unions (core/claims/claim-status.ts, discount-type.ts,
// core/conversions/conversion-status.ts) are checked by the database too. claims.status had no
// CHECK: a refund's new_status `completed` was stored on a claim as is; such a claim is
// `converted` (its order completed), which is what a refund sets on it now.
const upSql = `
UPDATE claims SET status = 'converted' WHERE status = 'completed';
ALTER TABLE claims ADD CONSTRAINT claims_status_check CHECK (status IN ('pending', 'converted', 'partial_refund', 'refunded'));
ALTER TABLE claims ADD CONSTRAINT claims_discount_type_check CHECK (discount_type IN ('percentage', 'fixed', 'custom'));
ALTER TABLE conversions ADD CONSTRAINT conversions_discount_type_check CHECK (discount_type IN ('percentage', 'fixed', 'custom'));
ALTER TABLE refunds ADD CONSTRAINT refunds_status_after_check CHECK (status_after IN ('completed', 'pending', 'partial_refund', 'refunded'));
`;

const downSql = `
ALTER TABLE refunds DROP CONSTRAINT IF EXISTS refunds_status_after_check;
ALTER TABLE conversions DROP CONSTRAINT IF EXISTS conversions_discount_type_check;
ALTER TABLE claims DROP CONSTRAINT IF EXISTS claims_discount_type_check;
ALTER TABLE claims DROP CONSTRAINT IF EXISTS claims_status_check;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// Dashboard reports in the brand's currency and the reward lifecycle (docs/merchants/dashboard.md):
// - the stored report figures were numeric(16,2): a KWD brand's have 3 decimals, a CLF one's 4.
//   They become plain numeric (exact at any scale; a day's sum may pass money_amount's 12 digits).
//   Stored rows are a cache, computed before orders in another currency were converted: deleted,
//   the next view computes them again.
// - report_days and report_hours gain the lifecycle figures of their entries: approved (credits),
//   voided (void + hold_void) and paid (payout).
// - the period indexes of conversions carry exchange_rate (and the advocate one status), so the
//   converted revenue is still an index-only scan.
// - "held now" (the overview): the brand's pending and in-review rewards (their amounts, index-only)
//   less the refunds taken off them during the hold (hold_reversal entries since the oldest held
//   reward), never a scan of the whole ledger.
const REPORT_TABLES = ['report_days', 'report_day_products', 'report_day_products_done', 'report_hours', 'report_hour_products', 'report_hour_products_done'];
const FIGURE_COLUMNS = ['revenue', 'refunded', 'credits', 'reversals', 'redemptions', 'redemption_returns'];
const LIFECYCLE_COLUMNS = ['approvals', 'voids', 'payouts'];

const alterFigures = (type: string) =>
  [
    ...['report_days', 'report_hours'].map((table) => `ALTER TABLE ${table} ${FIGURE_COLUMNS.map((column) => `ALTER COLUMN ${column} TYPE ${type}`).join(', ')};`),
    ...['report_day_products', 'report_hour_products'].map((table) => `ALTER TABLE ${table} ALTER COLUMN revenue TYPE ${type};`),
  ].join('\n');

const conversionsTriggers = (columns: string) => `
DROP TRIGGER IF EXISTS conversions_report_day_update ON conversions;
CREATE TRIGGER conversions_report_day_update AFTER UPDATE OF ${columns} ON conversions FOR EACH ROW
  WHEN (OLD.created_at < now() - interval '1 hour') EXECUTE FUNCTION report_day_invalidate();
`;

const upSql = `
${REPORT_TABLES.map((table) => `DELETE FROM ${table};`).join('\n')}
${alterFigures('numeric')}
${['report_days', 'report_hours'].map((table) => `ALTER TABLE ${table} ${LIFECYCLE_COLUMNS.map((column) => `ADD COLUMN ${column} numeric NOT NULL`).join(', ')};`).join('\n')}
DROP INDEX IF EXISTS conversions_by_created;
CREATE INDEX conversions_by_created ON conversions (brand_id, created_at) INCLUDE (conversion_id, advocate_id, status, order_value, refunded_total, exchange_rate);
DROP INDEX IF EXISTS conversions_by_advocate;
CREATE INDEX conversions_by_advocate ON conversions (brand_id, advocate_id, created_at) INCLUDE (status, order_value, refunded_total, exchange_rate);
CREATE INDEX rewards_held ON rewards (brand_id, created_at) INCLUDE (amount) WHERE status IN ('pending', 'in_review');
CREATE INDEX reward_ledger_hold_reversals ON reward_ledger (brand_id, created_at) INCLUDE (reward_id, amount) WHERE kind = 'hold_reversal';
${conversionsTriggers('status, order_value, refunded_total, exchange_rate, created_at')}
`;

const downSql = `
${conversionsTriggers('status, order_value, refunded_total, created_at')}
DROP INDEX IF EXISTS reward_ledger_hold_reversals;
DROP INDEX IF EXISTS rewards_held;
DROP INDEX IF EXISTS conversions_by_advocate;
CREATE INDEX conversions_by_advocate ON conversions (brand_id, advocate_id, created_at) INCLUDE (order_value, refunded_total);
DROP INDEX IF EXISTS conversions_by_created;
CREATE INDEX conversions_by_created ON conversions (brand_id, created_at) INCLUDE (conversion_id, advocate_id, status, order_value, refunded_total);
${REPORT_TABLES.map((table) => `DELETE FROM ${table};`).join('\n')}
${['report_days', 'report_hours'].map((table) => `ALTER TABLE ${table} ${LIFECYCLE_COLUMNS.map((column) => `DROP COLUMN ${column}`).join(', ')};`).join('\n')}
${alterFigures('numeric(16,2)')}
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// Currencies (docs/merchants/currencies.md): a brand sells in one ISO 4217 currency (its reward ledger's);
// a conversion records its own currency and, when that is not the brand's, the caller's exchange
// rate. Money columns were numeric(14,2); KWD has 3 decimals and CLF 4, so they become
// money_amount: numeric in major units with at most 4 decimals and 12 digits before the point.
// Unconstrained scale keeps what was written ("10.00" stays "10.00", JPY's "1500" stays "1500"),
// and sums stay exact. The code writes each amount with its currency's exponent.
const MONEY_COLUMNS: Array<[table: string, columns: string[]]> = [
  ['brands', ['referee_min_purchase', 'referee_discount_cap']],
  ['claims', ['raw_value', 'claim_value', 'discount_applied', 'refunded_total']],
  ['conversions', ['order_value', 'order_subtotal', 'discount_applied', 'total_discount', 'referrer_reward_paid', 'referee_reward_paid', 'refunded_total']],
  ['conversion_products', ['price', 'line_total']],
  ['refunds', ['amount']],
  ['reward_ledger', ['amount']],
  ['shopify_refund_transactions', ['shop_amount', 'presentment_amount']],
];

// Columns that default to zero: written "0.00" as numeric(14,2) printed it, so old readers see no change.
const ZERO_DEFAULTS: Array<[table: string, columns: string[]]> = [
  ['claims', ['raw_value', 'claim_value', 'discount_applied', 'refunded_total']],
  ['conversions', ['discount_applied', 'total_discount', 'referrer_reward_paid', 'refunded_total']],
];

const alterMoney = (type: string) =>
  MONEY_COLUMNS.map(([table, columns]) => `ALTER TABLE ${table} ${columns.map((column) => `ALTER COLUMN ${column} TYPE ${type}`).join(', ')};`).join('\n');

const upSql = `
CREATE DOMAIN money_amount AS numeric CHECK (VALUE = trunc(VALUE, 4) AND abs(VALUE) < 1000000000000);
${alterMoney('money_amount')}
${ZERO_DEFAULTS.map(([table, columns]) => `ALTER TABLE ${table} ${columns.map((column) => `ALTER COLUMN ${column} SET DEFAULT 0.00`).join(', ')};`).join('\n')}

ALTER TABLE brands ADD COLUMN currency text NOT NULL DEFAULT 'USD' CHECK (currency ~ '^[A-Z]{3}$');

-- conversions.currency was free text: upper-case it; keep what is no currency code in metadata.
UPDATE conversions SET currency = upper(trim(currency)) WHERE currency IS NOT NULL;
UPDATE conversions SET metadata = metadata || jsonb_build_object('original_currency', currency), currency = NULL
  WHERE currency IS NOT NULL AND currency !~ '^[A-Z]{3}$';
UPDATE conversions SET currency = brands.currency FROM brands
  WHERE conversions.currency IS NULL AND brands.brand_id = conversions.brand_id;
ALTER TABLE conversions ADD CONSTRAINT conversions_currency_check CHECK (currency ~ '^[A-Z]{3}$');
-- Brand-currency units per one unit of the order's currency; null when the order is in the brand's.
ALTER TABLE conversions ADD COLUMN exchange_rate numeric(24,12) CHECK (exchange_rate > 0);
`;

const downSql = `
ALTER TABLE conversions DROP COLUMN IF EXISTS exchange_rate;
ALTER TABLE conversions DROP CONSTRAINT IF EXISTS conversions_currency_check;
ALTER TABLE brands DROP COLUMN IF EXISTS currency;
${alterMoney('numeric(14,2)')}
DROP DOMAIN IF EXISTS money_amount;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// What counts as a sale (issue 12): a brand may count its shop's test orders; a platform order
// without an email (attributed by its referral code) is recorded without one; a Shopify refund's
// transactions are kept one row each, so a pending one is counted when it succeeds, and only once.
const upSql = `
ALTER TABLE brands ADD COLUMN count_test_orders boolean NOT NULL DEFAULT false;
ALTER TABLE conversions ALTER COLUMN email DROP NOT NULL;
ALTER TABLE conversions ALTER COLUMN email_normalized DROP NOT NULL;

CREATE TABLE shopify_refund_transactions (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  transaction_id text NOT NULL,
  order_id text NOT NULL,
  -- null until refunds/create names the refund (order_transactions/create does not).
  refund_id text,
  status text NOT NULL CHECK (status IN ('pending', 'success', 'failure', 'error')),
  -- The transaction in the shop's currency, from the refund's shop_money amounts; null until known.
  shop_amount numeric(14,2) CHECK (shop_amount >= 0),
  presentment_amount numeric(14,2),
  presentment_currency text,
  -- The core refund (refunds.refund_id) that counted this transaction; null: not counted yet.
  counted_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, transaction_id)
);
CREATE INDEX shopify_refund_transactions_by_refund ON shopify_refund_transactions (brand_id, refund_id);
`;

const downSql = `
DROP TABLE IF EXISTS shopify_refund_transactions;
DELETE FROM conversions WHERE email IS NULL;
ALTER TABLE conversions ALTER COLUMN email_normalized SET NOT NULL;
ALTER TABLE conversions ALTER COLUMN email SET NOT NULL;
ALTER TABLE brands DROP COLUMN IF EXISTS count_test_orders;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// The Shopify app proxy's page (docs/merchants/storefront.md): which advocate a shop's logged-in customer
// became when they joined there. The page shows figures only through this mapping, never by an
// email the browser sends (the app has no read_customers scope to look the customer up).
const upSql = `
CREATE TABLE shopify_storefront_customers (
  brand_id uuid NOT NULL,
  shop_domain text NOT NULL,
  customer_id text NOT NULL,
  advocate_id bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, shop_domain, customer_id),
  FOREIGN KEY (brand_id, advocate_id) REFERENCES advocates (brand_id, advocate_id) ON DELETE CASCADE
);
CREATE INDEX shopify_storefront_customers_by_advocate ON shopify_storefront_customers (brand_id, advocate_id);
`;

const downSql = `
DROP TABLE IF EXISTS shopify_storefront_customers;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// A shop-specific webhook subscription (custom apps: app-level ones come from shopify.app.toml),
// one row per topic of a shop link: subscribed, or refused by Shopify with its message (e.g.
// protected customer data not approved), so `referrals shopify status` can say what to do.
const upSql = `
CREATE TABLE shopify_webhook_subscriptions (
  brand_id uuid NOT NULL,
  shop_domain text NOT NULL,
  topic text NOT NULL,
  status text NOT NULL CHECK (status IN ('subscribed', 'refused')),
  subscription_id text,
  uri text NOT NULL,
  error text,
  checked_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, shop_domain, topic),
  FOREIGN KEY (brand_id, shop_domain) REFERENCES shopify_shops (brand_id, shop_domain) ON DELETE CASCADE
);
`;

const downSql = `
DROP TABLE IF EXISTS shopify_webhook_subscriptions;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// Issue 12 items 4, 5, 8: a custom app renewed by client credentials, one delivery per
// X-Shopify-Event-Id, and data-request exports the merchant fetches from the CLI.
const upSql = `
-- A Dev Dashboard app's client id (its secret is api_secret_encrypted: it also signs webhooks);
-- null for public installs and for legacy custom apps with a permanent token.
ALTER TABLE shopify_shops ADD COLUMN client_id text;

-- Deliveries kept before this key existed may repeat an event: only the first keeps its event id.
UPDATE shopify_inbox AS later SET event_id = NULL
  FROM shopify_inbox AS first
 WHERE later.event_id IS NOT NULL AND first.brand_id = later.brand_id AND first.event_id = later.event_id
   AND (first.received_at, first.webhook_id) < (later.received_at, later.webhook_id);
-- Shopify retries an event with a new X-Shopify-Webhook-Id but the same X-Shopify-Event-Id.
CREATE UNIQUE INDEX shopify_inbox_one_per_event ON shopify_inbox (brand_id, event_id) WHERE event_id IS NOT NULL;

-- customers/data_request exports: what we held on the customer when Shopify asked.
CREATE TABLE shopify_data_requests (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  request_id bigint GENERATED ALWAYS AS IDENTITY,
  shop_domain text NOT NULL,
  -- The delivery that asked (one export per delivery) and Shopify's own request id.
  webhook_id text NOT NULL,
  shopify_request_id text,
  customer_email text,
  export jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, request_id),
  UNIQUE (brand_id, webhook_id)
);
`;

const downSql = `
DROP TABLE IF EXISTS shopify_data_requests;
DROP INDEX IF EXISTS shopify_inbox_one_per_event;
ALTER TABLE shopify_shops DROP COLUMN IF EXISTS client_id;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

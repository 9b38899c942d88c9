import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// The Shopify app's tables. Like every table they carry brand_id and their keys begin with it;
// a webhook names only its shop, so shop look-ups go through non-unique indexes on shop_domain
// (one brand per shop is kept by an advisory lock on the domain at install/connect time).
const upSql = `
CREATE TABLE shopify_shops (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  shop_domain text NOT NULL,
  -- public: installed through our OAuth app; custom: connected with a merchant's own custom app.
  app_kind text NOT NULL CHECK (app_kind IN ('public', 'custom')),
  -- A custom app signs its webhooks with its own secret (AES-256-GCM, like API keys).
  api_secret_encrypted text,
  status text NOT NULL DEFAULT 'installed' CHECK (status IN ('installed', 'uninstalled')),
  -- The install created this brand (shop/redact then deletes the whole brand).
  created_brand boolean NOT NULL DEFAULT false,
  scopes text,
  installed_at timestamptz NOT NULL DEFAULT now(),
  uninstalled_at timestamptz,
  PRIMARY KEY (brand_id, shop_domain)
);
CREATE INDEX shopify_shops_by_domain ON shopify_shops (shop_domain);

-- Offline sessions of @shopify/shopify-api; tokens encrypted at rest.
CREATE TABLE shopify_sessions (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  session_id text NOT NULL,
  shop_domain text NOT NULL,
  state text NOT NULL DEFAULT '',
  is_online boolean NOT NULL DEFAULT false,
  scope text,
  access_token_encrypted text NOT NULL,
  expires_at timestamptz,
  refresh_token_encrypted text,
  refresh_token_expires_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, session_id)
);
CREATE INDEX shopify_sessions_by_id ON shopify_sessions (session_id);
CREATE INDEX shopify_sessions_by_shop ON shopify_sessions (shop_domain);

-- Every verified delivery, by X-Shopify-Webhook-Id, kept before it is acknowledged: processing
-- happens afterwards from here, so a crash in between loses nothing. The body is kept as text
-- because order ids exceed 2^53.
CREATE TABLE shopify_inbox (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  webhook_id text NOT NULL,
  shop_domain text NOT NULL,
  topic text NOT NULL,
  api_version text,
  event_id text,
  triggered_at timestamptz,
  -- The order (orders/paid, refunds/create) the delivery is about, for look-ups and redaction.
  order_id text,
  body text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  outcome text,
  result jsonb,
  received_at timestamptz NOT NULL DEFAULT now(),
  processed_at timestamptz,
  PRIMARY KEY (brand_id, webhook_id)
);
CREATE INDEX shopify_inbox_due ON shopify_inbox (next_attempt_at) WHERE status = 'pending';
CREATE INDEX shopify_inbox_by_brand ON shopify_inbox (brand_id, received_at DESC);
CREATE INDEX shopify_inbox_by_order ON shopify_inbox (brand_id, order_id) WHERE order_id IS NOT NULL;
`;

const downSql = `
DROP TABLE IF EXISTS shopify_inbox, shopify_sessions, shopify_shops;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

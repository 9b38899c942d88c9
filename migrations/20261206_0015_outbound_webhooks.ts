import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// Signed outbound webhooks (docs/api/webhooks.md): a brand's endpoints, the events its changes emit
// (written in the change's own transaction: an outbox) and one delivery per event and endpoint.
const upSql = `
CREATE TABLE webhook_endpoints (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  endpoint_id text NOT NULL,
  url text NOT NULL,
  -- null: every event type; else the subscribed types.
  events text[],
  description text,
  -- The Standard Webhooks signing secret (whsec_…), AES-256-GCM under KEY_ENCRYPTION_SECRET.
  secret_encrypted text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  disabled_reason text,
  disabled_at timestamptz,
  -- Failed attempts since the last delivered one, and when that run of failures began.
  consecutive_failures integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, endpoint_id)
);

CREATE TABLE webhook_events (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  event_id text NOT NULL,
  type text NOT NULL CHECK (type IN ('claim.created', 'conversion.created', 'conversion.refunded', 'reward.credited', 'reward.reversed', 'webhook.test')),
  -- The body every delivery of the event sends; json (not jsonb) keeps its text as written.
  payload json NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, event_id)
);

CREATE TABLE webhook_deliveries (
  brand_id uuid NOT NULL,
  delivery_id bigint GENERATED ALWAYS AS IDENTITY,
  endpoint_id text NOT NULL,
  event_id text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_attempt_at timestamptz,
  last_response_status integer,
  last_error text,
  delivered_at timestamptz,
  -- A replay is a new delivery of the same event (same webhook-id) to the same endpoint.
  replay_of bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, delivery_id),
  FOREIGN KEY (brand_id, endpoint_id) REFERENCES webhook_endpoints (brand_id, endpoint_id) ON DELETE CASCADE,
  FOREIGN KEY (brand_id, event_id) REFERENCES webhook_events (brand_id, event_id) ON DELETE CASCADE
);

-- The worker's look-up: due pending deliveries, across brands.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (brand_id, endpoint_id, delivery_id);
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (brand_id, event_id);
`;

const downSql = `
DROP TABLE IF EXISTS webhook_deliveries;
DROP TABLE IF EXISTS webhook_events;
DROP TABLE IF EXISTS webhook_endpoints;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// The merchant's dashboard: one-time sign-in links and the sessions they open (only hashes of
// their secrets are stored), and the indexes its period-bounded read queries need.
const upSql = `
CREATE TABLE dashboard_login_links (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  token_hash text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, token_hash)
);

CREATE TABLE dashboard_sessions (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  session_hash text NOT NULL,
  -- The synchronizer token every form of this session carries (CSRF); not a credential by itself.
  csrf_token text NOT NULL,
  expires_at timestamptz NOT NULL,
  ended_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, session_hash)
);

-- Overview and the revenue-by-product report read a period of a brand's conversions: an
-- index-only scan over the period instead of the whole table.
CREATE INDEX conversions_by_created ON conversions (brand_id, created_at) INCLUDE (conversion_id, advocate_id, status, order_value, refunded_total);
-- One advocate's conversions (the advocates table, an advocate's history).
CREATE INDEX conversions_by_advocate ON conversions (brand_id, advocate_id, created_at) INCLUDE (order_value, refunded_total);
CREATE INDEX reward_ledger_by_created ON reward_ledger (brand_id, created_at) INCLUDE (kind, amount);
CREATE INDEX reward_ledger_by_advocate_kind ON reward_ledger (brand_id, advocate_id) INCLUDE (kind, amount);
-- The activity feed: the newest of each kind first.
CREATE INDEX visits_by_created ON visits (brand_id, created_at, visit_id);
CREATE INDEX claims_by_created ON claims (brand_id, created_at, claim_id);
CREATE INDEX refunds_by_created ON refunds (brand_id, created_at, refund_pk);
CREATE INDEX medusa_deliveries_by_received ON medusa_deliveries (brand_id, received_at);
`;

const downSql = `
DROP INDEX IF EXISTS medusa_deliveries_by_received;
DROP INDEX IF EXISTS refunds_by_created;
DROP INDEX IF EXISTS claims_by_created;
DROP INDEX IF EXISTS visits_by_created;
DROP INDEX IF EXISTS reward_ledger_by_advocate_kind;
DROP INDEX IF EXISTS reward_ledger_by_created;
DROP INDEX IF EXISTS conversions_by_advocate;
DROP INDEX IF EXISTS conversions_by_created;
DROP TABLE IF EXISTS dashboard_sessions, dashboard_login_links;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

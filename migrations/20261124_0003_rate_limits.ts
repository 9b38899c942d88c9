import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// rate_limits is the one table without brand_id: its counters belong to a client IP across all
// brands and are consulted before the request is authenticated (a flood costs one upsert, no
// body read, no key look-up), so no brand is known yet. Its layout is the one
// rate-limiter-flexible's RateLimiterPostgres writes to (positional INSERT of key, points,
// expire; ON CONFLICT (key)). UNLOGGED: counters lost in a crash only reset a window.
const upSql = `
CREATE UNLOGGED TABLE rate_limits (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
-- The library deletes counters expired an hour ago every five minutes.
CREATE INDEX rate_limits_by_expiry ON rate_limits (expire);

-- Signatures of timestamped /convert requests already accepted, per brand, until their timestamp
-- leaves the replay window (after that the timestamp check refuses them anyway).
CREATE TABLE signature_replays (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  signature text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (brand_id, signature)
);
CREATE INDEX signature_replays_by_expiry ON signature_replays (brand_id, expires_at);
`;

const downSql = `
DROP TABLE IF EXISTS signature_replays, rate_limits;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// The merchant's dashboard: one-time sign-in links and the sessions they open (only hashes of
// their secrets are stored), the indexes its period-bounded read queries need, and each closed
// day's report figures, stored once computed and dropped by a trigger when the day changes.

// The figures a stored day and a stored hour both keep (report_days, report_hours), and those of
// their products (report_day_products, report_hour_products).
const FIGURE_COLUMNS = `  conversions integer NOT NULL,
  revenue numeric(16,2) NOT NULL,
  refunded numeric(16,2) NOT NULL,
  refunded_orders integer NOT NULL,
  credits numeric(16,2) NOT NULL,
  reversals numeric(16,2) NOT NULL,
  redemptions numeric(16,2) NOT NULL,
  redemption_returns numeric(16,2) NOT NULL,
  computed_at timestamptz NOT NULL DEFAULT now(),`;
const PRODUCT_COLUMNS = `  product_key text NOT NULL,
  sku text,
  names text[] NOT NULL,
  orders integer NOT NULL,
  quantity bigint NOT NULL,
  revenue numeric(16,2) NOT NULL,`;

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
-- One advocate's conversions (the advocates table, an advocate's history). Replaces the fraud
-- rules' index of the same keys (0013: velocity per advocate) with one that covers both.
DROP INDEX IF EXISTS conversions_by_advocate;
CREATE INDEX conversions_by_advocate ON conversions (brand_id, advocate_id, created_at) INCLUDE (order_value, refunded_total);
CREATE INDEX reward_ledger_by_created ON reward_ledger (brand_id, created_at) INCLUDE (kind, amount);
-- An advocate's balance (index-only sum) and history (newest first).
CREATE INDEX reward_ledger_by_advocate_kind ON reward_ledger (brand_id, advocate_id, created_at, entry_id) INCLUDE (kind, amount);
-- The activity feed: the newest of each kind first.
CREATE INDEX visits_by_created ON visits (brand_id, created_at, visit_id);
CREATE INDEX claims_by_created ON claims (brand_id, created_at, claim_id);
CREATE INDEX refunds_by_created ON refunds (brand_id, created_at, refund_pk);
CREATE INDEX medusa_deliveries_by_received ON medusa_deliveries (brand_id, received_at);

-- Each closed UTC day's report figures, computed once when a page first needs them, so a period's
-- report reads one row per day instead of every order. Today is always computed live. A change to
-- a closed day's conversions or ledger (a refund, a status change, a deletion) deletes its rows
-- (the trigger below) and the next page computes them again.
CREATE TABLE report_days (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  day date NOT NULL,
${FIGURE_COLUMNS}
  PRIMARY KEY (brand_id, day)
);

CREATE TABLE report_day_products (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  day date NOT NULL,
  -- 'sku:<sku>' for lines with a SKU, 'name:<name>' for lines without.
${PRODUCT_COLUMNS}
  PRIMARY KEY (brand_id, day, product_key)
);
-- Marks that a day's products were computed (a day may have none).
CREATE TABLE report_day_products_done (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  day date NOT NULL,
  PRIMARY KEY (brand_id, day)
);

-- The same for each closed hour of the current day, so a busy store's today is not summed order by
-- order on every view either (only the last hour or two are). Rows of past days are deleted once
-- their day is stored.
CREATE TABLE report_hours (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  hour timestamptz NOT NULL,
${FIGURE_COLUMNS}
  PRIMARY KEY (brand_id, hour)
);
CREATE TABLE report_hour_products (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  hour timestamptz NOT NULL,
${PRODUCT_COLUMNS}
  PRIMARY KEY (brand_id, hour, product_key)
);
CREATE TABLE report_hour_products_done (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  hour timestamptz NOT NULL,
  PRIMARY KEY (brand_id, hour)
);
`;

// One statement (its body has semicolons at line ends, which runStatements would split).
const invalidateFunction = `
CREATE FUNCTION report_day_invalidate() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed_brand uuid;
  changed_at timestamptz;
  changed_day date;
BEGIN
  -- An update moves nothing in time (created_at is not changed by the service): NEW's day is OLD's.
  changed_brand := NEW.brand_id;
  changed_at := NEW.created_at;
  changed_day := (changed_at AT TIME ZONE 'UTC')::date;
  -- The report takes the same lock before it computes a day: a change is either seen by the
  -- computation or deletes what it stored.
  PERFORM pg_advisory_xact_lock(hashtextextended('report-day:' || changed_brand || ':' || changed_day, 0));
  DELETE FROM report_days WHERE brand_id = changed_brand AND day = changed_day;
  DELETE FROM report_day_products WHERE brand_id = changed_brand AND day = changed_day;
  DELETE FROM report_day_products_done WHERE brand_id = changed_brand AND day = changed_day;
  DELETE FROM report_hours WHERE brand_id = changed_brand AND hour = date_trunc('hour', changed_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  DELETE FROM report_hour_products WHERE brand_id = changed_brand AND hour = date_trunc('hour', changed_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  DELETE FROM report_hour_products_done WHERE brand_id = changed_brand AND hour = date_trunc('hour', changed_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  RETURN NULL;
END
$$`;

// Deletions (a customer's redaction, a whole brand's) run per statement: one pass over the deleted
// rows' days, not one call per row.
const invalidateDeletedFunction = `
CREATE FUNCTION report_day_invalidate_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('report-day:' || brand_id || ':' || day, 0))
     FROM (SELECT DISTINCT brand_id, (created_at AT TIME ZONE 'UTC')::date AS day FROM gone
            WHERE created_at < now() - interval '1 hour' ORDER BY 1, 2) AS days;
  DELETE FROM report_days r USING (SELECT DISTINCT brand_id, (created_at AT TIME ZONE 'UTC')::date AS day FROM gone) g
   WHERE r.brand_id = g.brand_id AND r.day = g.day;
  DELETE FROM report_day_products r USING (SELECT DISTINCT brand_id, (created_at AT TIME ZONE 'UTC')::date AS day FROM gone) g
   WHERE r.brand_id = g.brand_id AND r.day = g.day;
  DELETE FROM report_day_products_done r USING (SELECT DISTINCT brand_id, (created_at AT TIME ZONE 'UTC')::date AS day FROM gone) g
   WHERE r.brand_id = g.brand_id AND r.day = g.day;
  DELETE FROM report_hours r USING (SELECT DISTINCT brand_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour FROM gone) g
   WHERE r.brand_id = g.brand_id AND r.hour = g.hour;
  DELETE FROM report_hour_products r USING (SELECT DISTINCT brand_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour FROM gone) g
   WHERE r.brand_id = g.brand_id AND r.hour = g.hour;
  DELETE FROM report_hour_products_done r USING (SELECT DISTINCT brand_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour FROM gone) g
   WHERE r.brand_id = g.brand_id AND r.hour = g.hour;
  RETURN NULL;
END
$$`;

// A day (or an hour) is stored only once it ended more than an hour ago (no transaction writing into
// it can still be open), so only rows older than an hour can be in a stored report: new orders, the
// hot path, do not call the function at all.
const triggers = `
CREATE TRIGGER conversions_report_day_insert AFTER INSERT ON conversions FOR EACH ROW
  WHEN (NEW.created_at < now() - interval '1 hour') EXECUTE FUNCTION report_day_invalidate();
CREATE TRIGGER conversions_report_day_update AFTER UPDATE OF status, order_value, refunded_total, created_at ON conversions FOR EACH ROW
  WHEN (OLD.created_at < now() - interval '1 hour') EXECUTE FUNCTION report_day_invalidate();
CREATE TRIGGER conversions_report_day_delete AFTER DELETE ON conversions REFERENCING OLD TABLE AS gone FOR EACH STATEMENT
  EXECUTE FUNCTION report_day_invalidate_deleted();
CREATE TRIGGER reward_ledger_report_day_insert AFTER INSERT ON reward_ledger FOR EACH ROW
  WHEN (NEW.created_at < now() - interval '1 hour') EXECUTE FUNCTION report_day_invalidate();
`;

const downSql = `
DROP TRIGGER IF EXISTS reward_ledger_report_day_insert ON reward_ledger;
DROP TRIGGER IF EXISTS conversions_report_day_delete ON conversions;
DROP TRIGGER IF EXISTS conversions_report_day_update ON conversions;
DROP TRIGGER IF EXISTS conversions_report_day_insert ON conversions;
DROP FUNCTION IF EXISTS report_day_invalidate_deleted();
DROP FUNCTION IF EXISTS report_day_invalidate();
DROP TABLE IF EXISTS report_hour_products_done, report_hour_products, report_hours, report_day_products_done, report_day_products, report_days;
DROP INDEX IF EXISTS medusa_deliveries_by_received;
DROP INDEX IF EXISTS refunds_by_created;
DROP INDEX IF EXISTS claims_by_created;
DROP INDEX IF EXISTS visits_by_created;
DROP INDEX IF EXISTS reward_ledger_by_advocate_kind;
DROP INDEX IF EXISTS reward_ledger_by_created;
DROP INDEX IF EXISTS conversions_by_advocate;
CREATE INDEX conversions_by_advocate ON conversions (brand_id, advocate_id, created_at);
DROP INDEX IF EXISTS conversions_by_created;
DROP TABLE IF EXISTS dashboard_sessions, dashboard_login_links;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
  await knex.raw(invalidateFunction);
  await knex.raw(invalidateDeletedFunction);
  await runStatements(knex, triggers);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

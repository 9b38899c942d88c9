import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// Fraud rules and the review queue (docs/merchants/fraud-review.md). A flagged conversion is recorded with
// a review and no ledger credit until a reviewer approves it. The rules need the shopper's IP on
// visits and conversions, the platform's customer id on conversions, and a brand's switches.
const upSql = `
ALTER TABLE brands
  ADD COLUMN fraud_self_referral boolean NOT NULL DEFAULT true,
  ADD COLUMN fraud_velocity boolean NOT NULL DEFAULT true,
  ADD COLUMN fraud_disposable_email boolean NOT NULL DEFAULT true,
  ADD COLUMN fraud_max_per_advocate_hour integer DEFAULT 10 CHECK (fraud_max_per_advocate_hour >= 0),
  ADD COLUMN fraud_max_per_ip_day integer DEFAULT 5 CHECK (fraud_max_per_ip_day >= 0),
  ADD COLUMN fraud_ip_window_days integer NOT NULL DEFAULT 7 CHECK (fraud_ip_window_days > 0);

ALTER TABLE visits ADD COLUMN ip_address inet;
ALTER TABLE conversions ADD COLUMN customer_id text, ADD COLUMN customer_ip inet;
-- The velocity counters: an advocate's conversions of the last hour, an IP's of the last day.
CREATE INDEX conversions_by_advocate ON conversions (brand_id, advocate_id, created_at);
CREATE INDEX conversions_by_customer_ip ON conversions (brand_id, customer_ip, created_at) WHERE customer_ip IS NOT NULL;

CREATE TABLE referral_reviews (
  brand_id uuid NOT NULL,
  review_id bigint GENERATED ALWAYS AS IDENTITY,
  conversion_id bigint NOT NULL,
  advocate_id bigint NOT NULL,
  -- [{code, detail}], code one of core/fraud/fraud-rules.ts FRAUD_REASONS.
  reasons jsonb NOT NULL CHECK (jsonb_typeof(reasons) = 'array' AND jsonb_array_length(reasons) > 0),
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'approved', 'rejected')),
  decided_by text,
  decided_at timestamptz,
  note text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, review_id),
  -- One review per conversion: a replayed order never opens a second one.
  UNIQUE (brand_id, conversion_id),
  CHECK ((status = 'open') = (decided_at IS NULL)),
  FOREIGN KEY (brand_id, conversion_id) REFERENCES conversions (brand_id, conversion_id) ON DELETE CASCADE,
  FOREIGN KEY (brand_id, advocate_id) REFERENCES advocates (brand_id, advocate_id) ON DELETE CASCADE
);
CREATE INDEX referral_reviews_by_status ON referral_reviews (brand_id, status, review_id);
`;

const downSql = `
DROP TABLE IF EXISTS referral_reviews;
DROP INDEX IF EXISTS conversions_by_customer_ip;
DROP INDEX IF EXISTS conversions_by_advocate;
ALTER TABLE conversions DROP COLUMN IF EXISTS customer_ip, DROP COLUMN IF EXISTS customer_id;
ALTER TABLE visits DROP COLUMN IF EXISTS ip_address;
ALTER TABLE brands
  DROP COLUMN IF EXISTS fraud_ip_window_days,
  DROP COLUMN IF EXISTS fraud_max_per_ip_day,
  DROP COLUMN IF EXISTS fraud_max_per_advocate_hour,
  DROP COLUMN IF EXISTS fraud_disposable_email,
  DROP COLUMN IF EXISTS fraud_velocity,
  DROP COLUMN IF EXISTS fraud_self_referral;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// Every table carries brand_id and every primary and unique key begins with it, so the data can
// be distributed by brand (Citus) without a rewrite. Money is numeric(14,2), never float.
const upSql = `
CREATE TABLE brands (
  brand_id uuid PRIMARY KEY,
  name text NOT NULL,
  plan text NOT NULL CHECK (plan IN ('starter', 'growth', 'premier')),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'uninstalled')),
  reward_type text NOT NULL DEFAULT 'fixed' CHECK (reward_type IN ('fixed', 'percentage')),
  reward_value numeric(14,4) NOT NULL DEFAULT 0 CHECK (reward_value >= 0),
  referee_discount_type text NOT NULL DEFAULT 'percentage' CHECK (referee_discount_type IN ('fixed', 'percentage')),
  referee_discount_value numeric(14,4) NOT NULL DEFAULT 0 CHECK (referee_discount_value >= 0),
  referee_min_purchase numeric(14,2),
  referee_discount_cap numeric(14,2),
  attribution_model text NOT NULL DEFAULT 'last_click' CHECK (attribution_model IN ('last_click', 'first_click')),
  attribution_window_days integer NOT NULL DEFAULT 30 CHECK (attribution_window_days > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  key_id uuid NOT NULL,
  key_hash text NOT NULL,
  key_prefix text NOT NULL,
  key_encrypted text NOT NULL,
  label text,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  PRIMARY KEY (brand_id, key_id),
  UNIQUE (brand_id, key_hash)
);
-- Authentication looks a key up by its hash before it trusts the brand header.
CREATE INDEX api_keys_by_hash ON api_keys (key_hash);

CREATE TABLE advocates (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  advocate_id bigint GENERATED ALWAYS AS IDENTITY,
  email text NOT NULL,
  email_normalized text NOT NULL,
  first_name text NOT NULL,
  last_name text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, advocate_id),
  UNIQUE (brand_id, email_normalized)
);

CREATE TABLE referral_codes (
  brand_id uuid NOT NULL,
  code_normalized text NOT NULL,
  code text NOT NULL,
  advocate_id bigint NOT NULL,
  kind text NOT NULL DEFAULT 'referral' CHECK (kind IN ('referral', 'coupon')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, code_normalized),
  FOREIGN KEY (brand_id, advocate_id) REFERENCES advocates (brand_id, advocate_id) ON DELETE CASCADE
);
CREATE INDEX referral_codes_by_advocate ON referral_codes (brand_id, advocate_id);

CREATE TABLE visits (
  brand_id uuid NOT NULL,
  visit_id bigint GENERATED ALWAYS AS IDENTITY,
  visitor_id uuid NOT NULL,
  code_normalized text NOT NULL,
  advocate_id bigint NOT NULL,
  share_channel text,
  landing_page text,
  utm_source text,
  utm_medium text,
  utm_campaign text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, visit_id),
  FOREIGN KEY (brand_id, advocate_id) REFERENCES advocates (brand_id, advocate_id) ON DELETE CASCADE
);
CREATE INDEX visits_by_visitor ON visits (brand_id, visitor_id, created_at DESC);

CREATE TABLE claims (
  brand_id uuid NOT NULL,
  claim_id bigint GENERATED ALWAYS AS IDENTITY,
  advocate_id bigint NOT NULL,
  referral_code text NOT NULL,
  email text NOT NULL,
  email_normalized text NOT NULL,
  customer_name text,
  phone text,
  visitor_id text,
  order_id text,
  type text NOT NULL DEFAULT 'referral' CHECK (type IN ('referral', 'advocate')),
  status text NOT NULL DEFAULT 'pending',
  raw_value numeric(14,2) NOT NULL DEFAULT 0,
  claim_value numeric(14,2) NOT NULL DEFAULT 0,
  discount_applied numeric(14,2) NOT NULL DEFAULT 0,
  discount_value numeric(14,4),
  discount_type text,
  refunded_total numeric(14,2) NOT NULL DEFAULT 0,
  products jsonb NOT NULL DEFAULT '[]',
  coupons_applied jsonb NOT NULL DEFAULT '[]',
  metadata jsonb NOT NULL DEFAULT '{}',
  source text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, claim_id),
  FOREIGN KEY (brand_id, advocate_id) REFERENCES advocates (brand_id, advocate_id) ON DELETE CASCADE
);
CREATE INDEX claims_by_email ON claims (brand_id, email_normalized, created_at DESC);

CREATE TABLE conversions (
  brand_id uuid NOT NULL,
  conversion_id bigint GENERATED ALWAYS AS IDENTITY,
  order_id text,
  content_hash text,
  advocate_id bigint NOT NULL,
  claim_id bigint,
  referral_code text,
  visitor_id text,
  email text NOT NULL,
  email_normalized text NOT NULL,
  customer_name text,
  type text NOT NULL DEFAULT 'referral' CHECK (type IN ('referral', 'advocate')),
  status text NOT NULL DEFAULT 'completed' CHECK (status IN ('completed', 'pending', 'partial_refund', 'refunded')),
  order_value numeric(14,2) NOT NULL,
  order_subtotal numeric(14,2),
  discount_applied numeric(14,2) NOT NULL DEFAULT 0,
  total_discount numeric(14,2) NOT NULL DEFAULT 0,
  discount_value numeric(14,4),
  discount_type text,
  referrer_reward_paid numeric(14,2) NOT NULL DEFAULT 0,
  referee_reward_paid numeric(14,2),
  refunded_total numeric(14,2) NOT NULL DEFAULT 0,
  currency text,
  source text,
  coupons_applied jsonb NOT NULL DEFAULT '[]',
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, conversion_id),
  -- The idempotency key: one order is one conversion, whoever reports it and however often.
  UNIQUE (brand_id, order_id),
  FOREIGN KEY (brand_id, advocate_id) REFERENCES advocates (brand_id, advocate_id) ON DELETE CASCADE
);
CREATE INDEX conversions_by_email ON conversions (brand_id, email_normalized);
CREATE INDEX conversions_by_claim ON conversions (brand_id, claim_id) WHERE claim_id IS NOT NULL;
CREATE INDEX conversions_by_content_hash ON conversions (brand_id, content_hash, created_at) WHERE content_hash IS NOT NULL;

CREATE TABLE conversion_products (
  brand_id uuid NOT NULL,
  conversion_id bigint NOT NULL,
  line_no integer NOT NULL,
  name text NOT NULL,
  quantity integer NOT NULL,
  price numeric(14,2) NOT NULL,
  -- The line's exact revenue: line_total when the caller sent one, else price x quantity.
  line_total numeric(14,2) NOT NULL,
  sku text,
  attributes jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (brand_id, conversion_id, line_no),
  FOREIGN KEY (brand_id, conversion_id) REFERENCES conversions (brand_id, conversion_id) ON DELETE CASCADE
);

CREATE TABLE refunds (
  brand_id uuid NOT NULL,
  refund_pk bigint GENERATED ALWAYS AS IDENTITY,
  refund_id text,
  conversion_id bigint,
  claim_id bigint,
  amount numeric(14,2) NOT NULL CHECK (amount >= 0),
  is_full_refund boolean NOT NULL,
  status_after text NOT NULL,
  reason text,
  referral_code text,
  source text,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, refund_pk),
  UNIQUE (brand_id, refund_id)
);
CREATE INDEX refunds_by_conversion ON refunds (brand_id, conversion_id);

-- Append-only: the balance is the sum of the entries, never a mutable counter.
CREATE TABLE reward_ledger (
  brand_id uuid NOT NULL,
  entry_id bigint GENERATED ALWAYS AS IDENTITY,
  advocate_id bigint NOT NULL,
  conversion_id bigint,
  refund_pk bigint,
  kind text NOT NULL CHECK (kind IN ('credit', 'reversal', 'redemption')),
  amount numeric(14,2) NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, entry_id),
  FOREIGN KEY (brand_id, advocate_id) REFERENCES advocates (brand_id, advocate_id) ON DELETE CASCADE
);
-- A conversion is credited at most once, even if two requests race.
CREATE UNIQUE INDEX reward_ledger_one_credit_per_conversion ON reward_ledger (brand_id, conversion_id) WHERE kind = 'credit';
CREATE INDEX reward_ledger_by_advocate ON reward_ledger (brand_id, advocate_id);
`;

const downSql = `
DROP TABLE IF EXISTS reward_ledger, refunds, conversion_products, conversions, claims, visits,
  referral_codes, advocates, api_keys, brands CASCADE;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// Store credit as a reward fulfilment (docs/merchants/reward-lifecycle.md "Fulfilment"): a brand may
// credit approved money to the advocate's customer account on the store. Each issue says how it
// reached the advocate (`method`: a code, or store credit; the worker decides, falling back to a code
// for an advocate with no customer account), and when a credit was first sent to the store, so a
// retry looks for that credit before sending another (connectors/shopify/reward-store-credit.ts).
const upSql = `
ALTER TABLE brands DROP CONSTRAINT IF EXISTS brands_reward_fulfilment_check;
ALTER TABLE brands ADD CONSTRAINT brands_reward_fulfilment_check CHECK (reward_fulfilment IN ('payout', 'coupon', 'store_credit'));
ALTER TABLE reward_issues ADD COLUMN method text NOT NULL DEFAULT 'code' CHECK (method IN ('code', 'store_credit'));
ALTER TABLE reward_issues ADD COLUMN credit_sent_at timestamptz;
-- A store credit that came as a code: the advocate had no customer account (the email says so).
ALTER TABLE reward_issues ADD COLUMN no_customer_account boolean NOT NULL DEFAULT false;
`;

const downSql = `
UPDATE brands SET reward_fulfilment = 'coupon' WHERE reward_fulfilment = 'store_credit';
ALTER TABLE brands DROP CONSTRAINT IF EXISTS brands_reward_fulfilment_check;
ALTER TABLE brands ADD CONSTRAINT brands_reward_fulfilment_check CHECK (reward_fulfilment IN ('payout', 'coupon'));
ALTER TABLE reward_issues DROP COLUMN IF EXISTS no_customer_account;
ALTER TABLE reward_issues DROP COLUMN IF EXISTS credit_sent_at;
ALTER TABLE reward_issues DROP COLUMN IF EXISTS method;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

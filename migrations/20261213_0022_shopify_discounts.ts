import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// The friend's offer as a Shopify code discount (docs/merchants/shopify-discounts.md): one discount per linked
// shop, and every active referral code of the brand one of its redeem codes. The wanted state is
// the brand's own data (its offer, its active advocates' codes); these tables hold what Shopify has,
// so the sync worker's diff is what is left to do — it survives a restart, and a code created by
// any path (REST, import, CLI, a join) reaches Shopify alike.
const upSql = `
-- How an advocate's share link is written: the store with ?ref=CODE, or Shopify's discount link
-- (/discount/CODE?redirect=/?ref=CODE: the code applied at checkout, the visit attributed).
ALTER TABLE brands ADD COLUMN share_link_kind text NOT NULL DEFAULT 'ref' CHECK (share_link_kind IN ('ref', 'shopify_discount'));

CREATE TABLE shopify_discounts (
  brand_id uuid NOT NULL REFERENCES brands (brand_id) ON DELETE CASCADE,
  shop_domain text NOT NULL,
  -- gid://shopify/DiscountCodeNode/…; null until created.
  discount_id text,
  discount_kind text CHECK (discount_kind IN ('basic', 'free_shipping')),
  -- The discount's own code (random, unguessable): a code discount needs one; advocates' codes are its redeem codes.
  anchor_code text,
  -- The offer last written to Shopify (a hash of the input), so a changed offer is updated once.
  offer_hash text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'synced', 'failed')),
  last_error text,
  -- One process syncs a shop at a time.
  lease_until timestamptz,
  synced_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, shop_domain)
);

CREATE TABLE shopify_discount_codes (
  brand_id uuid NOT NULL,
  shop_domain text NOT NULL,
  code_normalized text NOT NULL,
  code text NOT NULL,
  status text NOT NULL CHECK (status IN ('synced', 'refused')),
  -- gid://shopify/DiscountRedeemCode/…, to remove it.
  redeem_code_id text,
  error text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (brand_id, shop_domain, code_normalized),
  FOREIGN KEY (brand_id, shop_domain) REFERENCES shopify_discounts (brand_id, shop_domain) ON DELETE CASCADE
);
`;

const downSql = `
DROP TABLE IF EXISTS shopify_discount_codes, shopify_discounts;
ALTER TABLE brands DROP COLUMN IF EXISTS share_link_kind;
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}

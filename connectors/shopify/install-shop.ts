import { Session } from '@shopify/shopify-api';
import type { Knex } from 'knex';
import { createApiKey } from '../../core/brands/api-keys';
import { type Brand, type Plan, createBrand, getBrand, updateBrand } from '../../core/brands/brand';
import { encryptSecret } from '../../core/brands/key-encryption';
import { recordAudit } from '../../core/audit/audit-log';
import { Conflict } from '../../core/errors';
import { saveClientId } from './client-credentials';
import { KnexSessionStorage } from './session-storage';
import { findShopLink, lockShop, saveShopLink } from './shop-links';

export interface InstallResult {
  brand: Brand;
  /** Shown once, on a first install only; a reinstall keeps the brand's keys. */
  api_key: string | null;
  reinstalled: boolean;
}

/**
 * A completed OAuth install: a new shop gets a brand and its first API key; a shop seen before
 * (a reinstall) is re-linked to its brand, which becomes active again. A new brand takes the shop's
 * currency; a reinstalled one keeps its own (its ledger is in it). The offline session is
 * stored with it, in the same transaction.
 */
export async function installShop(
  trx: Knex.Transaction,
  input: { session: Session; plan: Plan; encryptionSecret: string; currency: string },
): Promise<InstallResult> {
  const shop = input.session.shop;
  await lockShop(trx, shop);
  const link = await findShopLink(trx, shop);
  let result: InstallResult;
  if (link) {
    const brand = await getBrand(trx, link.brand_id);
    result = { brand: brand.status === 'active' ? brand : await updateBrand(trx, brand.brand_id, { status: 'active' }), api_key: null, reinstalled: true };
  } else {
    // The shop's own domain is its storefront's (it redirects to the primary domain): share links go there.
    const brand = await createBrand(trx, { name: shop, plan: input.plan, currency: input.currency, store_url: `https://${shop}` });
    const key = await createApiKey(trx, brand.brand_id, input.encryptionSecret, 'shopify install');
    result = { brand, api_key: key.api_key, reinstalled: false };
  }
  await saveShopLink(trx, {
    brand_id: result.brand.brand_id,
    shop_domain: shop,
    app_kind: 'public',
    api_secret_encrypted: null,
    created_brand: link ? link.created_brand : true,
    scopes: input.session.scope ?? null,
  });
  await new KnexSessionStorage(trx, input.encryptionSecret).storeSession(input.session);
  // The shop's own act, recorded like a merchant's change (a new key by its prefix, never whole).
  await recordAudit(trx, {
    brandId: result.brand.brand_id,
    actor: `Shopify (${shop})`,
    action: result.reinstalled ? 'shopify.reinstall' : 'shopify.install',
    subject: `shop:${shop}`,
    after: { shop, app_kind: 'public', scopes: input.session.scope ?? null, status: 'active', ...(result.api_key ? { key_prefix: result.api_key.slice(0, 10) } : {}) },
  });
  return result;
}

/**
 * `shopify connect`: links an existing brand to a shop through the merchant's own custom app: a
 * Dev Dashboard app (its client id, its first client-credentials session) or a legacy permanent
 * Admin API token; either way with its secret, which signs its webhooks. The audit log names `actor`.
 */
export async function connectCustomApp(
  trx: Knex.Transaction,
  input: { brandId: string; shop: string; apiSecret: string; encryptionSecret: string; currency: string; actor: string } & (
    | { accessToken: string }
    | { clientId: string; session: Session }
  ),
): Promise<Brand> {
  await lockShop(trx, input.shop);
  const before = await getBrand(trx, input.brandId);
  const inCurrency = await brandInShopCurrency(trx, before, input.currency);
  const brand = inCurrency.store_url ? inCurrency : await updateBrand(trx, inCurrency.brand_id, { store_url: `https://${input.shop}` });
  const link = await findShopLink(trx, input.shop);
  if (link && link.brand_id !== brand.brand_id) {
    throw new Conflict(`${input.shop} is already connected to brand ${link.brand_id}`);
  }
  await saveShopLink(trx, {
    brand_id: brand.brand_id,
    shop_domain: input.shop,
    app_kind: 'custom',
    api_secret_encrypted: encryptSecret(input.apiSecret, input.encryptionSecret),
    created_brand: link?.created_brand ?? false,
  });
  await saveClientId(trx, brand.brand_id, input.shop, 'clientId' in input ? input.clientId : null);
  await new KnexSessionStorage(trx, input.encryptionSecret).storeSession(
    'session' in input
      ? input.session
      : new Session({ id: `offline_${input.shop}`, shop: input.shop, state: '', isOnline: false, accessToken: input.accessToken }),
  );
  const after = brand.status === 'active' ? brand : await updateBrand(trx, brand.brand_id, { status: 'active' });
  const moved = (['currency', 'store_url', 'status'] as const).filter((field) => before[field] !== after[field]);
  await recordAudit(trx, {
    brandId: after.brand_id,
    actor: input.actor,
    action: 'shopify.connect',
    subject: `shop:${input.shop}`,
    before: moved.length ? Object.fromEntries(moved.map((field) => [field, before[field]])) : null,
    after: { shop: input.shop, app_kind: 'custom', ...Object.fromEntries(moved.map((field) => [field, after[field]])) },
  });
  return after;
}

/**
 * A brand connected to a shop sells in the shop's currency: one that has recorded nothing yet
 * takes it; one with conversions in another currency is refused (its ledger is in that one, and
 * the shop's orders carry no exchange rate).
 */
async function brandInShopCurrency(trx: Knex.Transaction, brand: Brand, currency: string): Promise<Brand> {
  if (brand.currency === currency) return brand;
  const recorded = await trx('conversions').where({ brand_id: brand.brand_id }).first('conversion_id');
  if (recorded) {
    throw new Conflict(`the shop sells in ${currency} but brand ${brand.brand_id} records in ${brand.currency} and has conversions: connect the shop to a brand in ${currency}`);
  }
  return updateBrand(trx, brand.brand_id, { currency });
}

import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { type Brand, getBrand } from '../../core/brands/brand';
import type { AdminApi } from './admin-api';
import {
  ADD_REDEEM_CODES, CREATE_BASIC_DISCOUNT, REDEEM_CODES_CREATION_DONE, CREATE_FREE_SHIPPING_DISCOUNT, DELETE_DISCOUNT, DELETE_REDEEM_CODES, REDEEM_CODES_CREATION, UPDATE_BASIC_DISCOUNT,
  UPDATE_FREE_SHIPPING_DISCOUNT,
} from './discount-documents';
import { type ShopifyOffer, offerRefusal, shopifyOffer } from './discount-offer';

/**
 * Keeps a linked shop's friend-offer discount and its redeem codes in step with the brand
 * (docs/merchants/shopify-discounts.md). What is wanted is read from the brand itself (its offer, its active
 * advocates' referral codes); shopify_discounts and shopify_discount_codes hold what Shopify has.
 * Each pass does the difference, a bounded number of calls at a time, so 10,000 new codes reach
 * Shopify over a few passes without holding a request, and a restart resumes from the tables.
 */

/** Shopify's limit per discountRedeemCodeBulkAdd (and the page of its result we read). */
export const CODES_PER_CALL = 250;

interface UserError {
  field: string[] | null;
  message: string;
  code?: string | null;
}

interface DiscountRow {
  brand_id: string;
  shop_domain: string;
  discount_id: string | null;
  discount_kind: 'basic' | 'free_shipping' | null;
  anchor_code: string | null;
  offer_hash: string | null;
}

export interface SyncOptions {
  /** Bulk-add calls one shop gets per pass (each up to 250 codes). */
  addCallsPerPass: number;
  /** How long to wait between polls of a bulk creation, and how many polls before trying later. */
  pollMs: number;
  maxPolls: number;
  logger?: Logger;
}

export const DEFAULT_SYNC_OPTIONS: SyncOptions = { addCallsPerPass: 8, pollMs: 500, maxPolls: 120 };

class ShopifyRefusal extends Error {}

function refusedBy(errors: UserError[]): void {
  if (errors.length > 0) throw new ShopifyRefusal(errors.map((error) => `${(error.field ?? []).join('.') || 'discount'}: ${error.message}`).join('; '));
}

/** The active advocates' referral codes of the brand the shop does not have yet (nor refused), oldest first. */
async function pendingCodes(db: Knex, row: DiscountRow, limit: number): Promise<Array<{ code: string; code_normalized: string }>> {
  // Each join on the other table's whole key (not the brand alone): a primary-key look-up per row,
  // whatever the statistics say (a brand's rows just written have none yet).
  const { rows } = await db.raw(
    `SELECT c.code, c.code_normalized
       FROM referral_codes c
       JOIN advocates a ON a.brand_id = c.brand_id AND a.advocate_id = c.advocate_id AND a.status = 'active'
       LEFT JOIN shopify_discount_codes s ON s.brand_id = c.brand_id AND s.shop_domain = :shop AND s.code_normalized = c.code_normalized
      WHERE c.brand_id = :brand AND c.kind = 'referral' AND s.code_normalized IS NULL
      ORDER BY c.created_at, c.code_normalized
      LIMIT :limit`,
    { brand: row.brand_id, shop: row.shop_domain, limit },
  );
  return rows;
}

/** Codes the shop has that are no longer wanted (their advocate deactivated, or the code gone). */
async function unwantedCodes(db: Knex, row: DiscountRow, limit: number): Promise<Array<{ code_normalized: string; redeem_code_id: string | null }>> {
  const { rows } = await db.raw(
    `SELECT s.code_normalized, s.redeem_code_id
       FROM shopify_discount_codes s
       LEFT JOIN referral_codes c ON c.brand_id = s.brand_id AND c.code_normalized = s.code_normalized AND c.kind = 'referral'
       LEFT JOIN advocates a ON a.brand_id = c.brand_id AND a.advocate_id = c.advocate_id AND a.status = 'active'
      WHERE s.brand_id = :brand AND s.shop_domain = :shop AND s.status = 'synced' AND a.advocate_id IS NULL
      LIMIT :limit`,
    { brand: row.brand_id, shop: row.shop_domain, limit },
  );
  return rows;
}

/** Creates the discount, updates a changed offer, or replaces it when the kind changed. Returns its id. */
async function syncOffer(db: Knex, api: AdminApi, row: DiscountRow, offer: ShopifyOffer): Promise<string> {
  const key = { brand_id: row.brand_id, shop_domain: row.shop_domain };
  if (row.discount_id && row.discount_kind === offer.kind) {
    if (row.offer_hash === offer.hash) return row.discount_id;
    const document = offer.kind === 'basic' ? UPDATE_BASIC_DISCOUNT : UPDATE_FREE_SHIPPING_DISCOUNT;
    const data = await api.request<Record<string, { userErrors: UserError[] }>>(document, { id: row.discount_id, discount: offer.input });
    refusedBy(Object.values(data)[0]!.userErrors);
    await db('shopify_discounts').where(key).update({ offer_hash: offer.hash, updated_at: db.fn.now() });
    return row.discount_id;
  }
  if (row.discount_id) {
    // Another kind of discount: the old one (and its codes) goes; every code is added to the new one.
    const data = await api.request<{ discountCodeDelete: { userErrors: UserError[] } }>(DELETE_DISCOUNT, { id: row.discount_id });
    refusedBy(data.discountCodeDelete.userErrors.filter((error) => error.code !== 'INVALID' && !/not exist|not found/i.test(error.message)));
    await db('shopify_discount_codes').where(key).delete();
  }
  const anchor = row.anchor_code ?? `REF-${randomBytes(9).toString('base64url').toUpperCase().replace(/[^A-Z0-9]/g, 'X')}`;
  const document = offer.kind === 'basic' ? CREATE_BASIC_DISCOUNT : CREATE_FREE_SHIPPING_DISCOUNT;
  const data = await api.request<Record<string, { codeDiscountNode: { id: string } | null; userErrors: UserError[] }>>(document, {
    discount: { ...offer.input, code: anchor, startsAt: new Date().toISOString() },
  });
  const created = Object.values(data)[0]!;
  refusedBy(created.userErrors);
  if (!created.codeDiscountNode) throw new ShopifyRefusal('Shopify created no discount');
  await db('shopify_discounts')
    .where(key)
    .update({ discount_id: created.codeDiscountNode.id, discount_kind: offer.kind, anchor_code: anchor, offer_hash: offer.hash, updated_at: db.fn.now() });
  return created.codeDiscountNode.id;
}

interface CreationCode {
  code: string;
  errors: Array<{ message: string }>;
  discountRedeemCode: { id: string } | null;
}

interface BulkCreation {
  done: boolean;
  codes: { nodes: CreationCode[] };
}

/** Adds up to 250 codes and waits for Shopify's bulk creation to finish; records each code's outcome. Returns how many were sent. */
async function addCodes(db: Knex, api: AdminApi, row: DiscountRow, discountId: string, options: SyncOptions): Promise<number> {
  const codes = await pendingCodes(db, row, CODES_PER_CALL);
  if (codes.length === 0) return 0;
  const added = await api.request<{ discountRedeemCodeBulkAdd: { bulkCreation: { id: string } | null; userErrors: UserError[] } }>(ADD_REDEEM_CODES, {
    discountId,
    codes: codes.map(({ code }) => ({ code })),
  });
  refusedBy(added.discountRedeemCodeBulkAdd.userErrors);
  const creationId = added.discountRedeemCodeBulkAdd.bulkCreation!.id;
  let done = false;
  for (let poll = 0; poll < options.maxPolls && !done; poll += 1) {
    done = Boolean((await api.request<{ discountRedeemCodeBulkCreation: { done: boolean } | null }>(REDEEM_CODES_CREATION_DONE, { id: creationId })).discountRedeemCodeBulkCreation?.done);
    if (!done) await new Promise((resolve) => setTimeout(resolve, options.pollMs));
  }
  if (!done) throw new Error(`Shopify's bulk creation ${creationId} was not done after ${options.maxPolls} polls; the codes are sent again next pass`);
  const creation = (await api.request<{ discountRedeemCodeBulkCreation: BulkCreation }>(REDEEM_CODES_CREATION, { id: creationId })).discountRedeemCodeBulkCreation;
  const outcome = new Map(creation.codes.nodes.map((node) => [node.code.toLowerCase(), node]));
  const rows = codes.map(({ code, code_normalized }) => {
    const node = outcome.get(code.toLowerCase());
    const error = node?.errors.map((e) => e.message).join('; ') || (node?.discountRedeemCode ? null : 'Shopify did not report this code');
    return {
      brand_id: row.brand_id,
      shop_domain: row.shop_domain,
      code_normalized,
      code,
      status: node?.discountRedeemCode ? 'synced' : 'refused',
      redeem_code_id: node?.discountRedeemCode?.id ?? null,
      error: node?.discountRedeemCode ? null : error,
    };
  });
  await db('shopify_discount_codes').insert(rows).onConflict(['brand_id', 'shop_domain', 'code_normalized']).merge();
  return codes.length;
}

/** Removes up to 250 codes no longer wanted. Returns how many. */
async function removeCodes(db: Knex, api: AdminApi, row: DiscountRow, discountId: string): Promise<number> {
  const unwanted = await unwantedCodes(db, row, CODES_PER_CALL);
  if (unwanted.length === 0) return 0;
  const ids = unwanted.flatMap(({ redeem_code_id }) => (redeem_code_id ? [redeem_code_id] : []));
  if (ids.length > 0) {
    const data = await api.request<{ discountCodeRedeemCodeBulkDelete: { userErrors: UserError[] } }>(DELETE_REDEEM_CODES, { discountId, ids });
    refusedBy(data.discountCodeRedeemCodeBulkDelete.userErrors);
  }
  await db('shopify_discount_codes')
    .where({ brand_id: row.brand_id, shop_domain: row.shop_domain })
    .whereIn('code_normalized', unwanted.map(({ code_normalized }) => code_normalized))
    .delete();
  return unwanted.length;
}

/**
 * One shop's sync: the offer, then removals, then up to `addCallsPerPass` bulk additions. A refusal
 * (an offer Shopify cannot express, a missing scope, a userError) is recorded on the shop's row
 * for `shopify codes` and the dashboard, and tried again next pass. Returns the work done.
 */
export async function syncShopDiscount(db: Knex, apiFor: () => Promise<AdminApi>, row: DiscountRow, options: SyncOptions = DEFAULT_SYNC_OPTIONS): Promise<number> {
  const key = { brand_id: row.brand_id, shop_domain: row.shop_domain };
  const brand: Brand = await getBrand(db, row.brand_id);
  const refusal = offerRefusal(brand);
  if (refusal) {
    await db('shopify_discounts').where(key).update({ status: 'failed', last_error: refusal, updated_at: db.fn.now() });
    return 0;
  }
  const offer = shopifyOffer(brand);
  const idle = row.discount_id !== null && row.offer_hash === offer.hash && row.discount_kind === offer.kind
    && (await pendingCodes(db, row, 1)).length === 0 && (await unwantedCodes(db, row, 1)).length === 0;
  if (idle) {
    // Nothing to do: no call to Shopify (not even a token).
    await db('shopify_discounts').where(key).update({ status: 'synced', last_error: null, updated_at: db.fn.now() });
    return 0;
  }
  let work = 0;
  try {
    const api = await apiFor();
    const discountId = await syncOffer(db, api, row, offer);
    work += 1;
    // The code queries need only the shop's key, which the offer's sync did not change.
    work += await removeCodes(db, api, row, discountId);
    for (let call = 0; call < options.addCallsPerPass; call += 1) {
      const sent = await addCodes(db, api, row, discountId, options);
      work += sent;
      if (sent < CODES_PER_CALL) break;
    }
    const left = (await pendingCodes(db, row, 1)).length + (await unwantedCodes(db, row, 1)).length;
    await db('shopify_discounts').where(key).update({ status: left > 0 ? 'pending' : 'synced', last_error: null, synced_at: left > 0 ? undefined : db.fn.now(), updated_at: db.fn.now() });
  } catch (error) {
    const message = accessHint((error as Error).message);
    options.logger?.warn({ err: error, brand_id: row.brand_id, shop: row.shop_domain }, 'shopify discount sync failed; tried again later');
    await db('shopify_discounts').where(key).update({ status: 'failed', last_error: message.slice(0, 2000), updated_at: db.fn.now() });
  }
  return work;
}

/** Shopify's access refusal, with what the merchant does about it (the friend's offer's sync and the reward codes'). */
export function accessHint(message: string): string {
  return /write_discounts|read_discounts|access denied/i.test(message)
    ? `${message} Grant the app the write_discounts scope: reinstall it (public app), or add the scope to the custom app and run \`referrals shopify connect\` again.`
    : message;
}

/**
 * Takes up to `limit` linked shops whose discount may need work (a lease each, so one process syncs
 * a shop at a time), adding the row of a newly linked shop first.
 */
export async function leaseShops(db: Knex, options: { limit: number; leaseSeconds: number; failedWaitSeconds: number; brandId?: string }): Promise<DiscountRow[]> {
  await db.raw(
    `INSERT INTO shopify_discounts (brand_id, shop_domain)
     SELECT brand_id, shop_domain FROM shopify_shops WHERE status = 'installed' ${options.brandId ? 'AND brand_id = ?' : ''}
     ON CONFLICT (brand_id, shop_domain) DO NOTHING`,
    options.brandId ? [options.brandId] : [],
  );
  const { rows } = await db.raw(
    `UPDATE shopify_discounts d SET lease_until = now() + make_interval(secs => ?)
      WHERE (d.brand_id, d.shop_domain) IN (
        SELECT x.brand_id, x.shop_domain FROM shopify_discounts x
          JOIN shopify_shops s ON s.brand_id = x.brand_id AND s.shop_domain = x.shop_domain AND s.status = 'installed'
         WHERE (x.lease_until IS NULL OR x.lease_until < now())
           -- A refused sync waits a few minutes (a missing scope, an offer Shopify cannot take) before it is tried again.
           AND (x.status <> 'failed' OR x.updated_at < now() - make_interval(secs => ?))
           ${options.brandId ? 'AND x.brand_id = ?' : ''}
         ORDER BY x.updated_at LIMIT ? FOR UPDATE OF x SKIP LOCKED)
      RETURNING d.brand_id, d.shop_domain, d.discount_id, d.discount_kind, d.anchor_code, d.offer_hash`,
    [options.leaseSeconds, options.failedWaitSeconds, ...(options.brandId ? [options.brandId] : []), options.limit],
  );
  return rows as DiscountRow[];
}

export async function releaseShop(db: Knex, row: Pick<DiscountRow, 'brand_id' | 'shop_domain'>): Promise<void> {
  await db('shopify_discounts').where({ brand_id: row.brand_id, shop_domain: row.shop_domain }).update({ lease_until: null });
}

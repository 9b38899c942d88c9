import { createHash } from 'node:crypto';
import type { DeliveryLogger } from './deliver-snapshot';
import type { ReferralPluginOptions } from './plugin-options';
import { shareLinkFor } from './share-link';

/**
 * The friend's offer at a Medusa checkout: every referral code of the brand's active advocates is a
 * Medusa promotion (Promotion module, created and changed through Medusa's promotion workflows)
 * that mirrors the brand's friend offer; a deactivated advocate's promotions are set inactive.
 * A scheduled job (jobs/sync-referral-promotions.ts) pulls the offer (GET /api/v1/brand) and the
 * advocates changed since its last successful run (GET /api/v1/advocates?updated_since=) from the
 * referral service; a changed offer means a full pull, and every promotion whose offer hash (in
 * its metadata) differs is updated.
 *
 * What Medusa 2.21 can express, read in its Promotion module (docs/development/decisions.md):
 * - percentage / fixed: application_method {type, target_type 'order', allocation 'across', value,
 *   currency_code}; free shipping: 100 % of target_type 'shipping_methods', allocation 'each'.
 * - minimum purchase: no rule attribute for it in Medusa's admin, but the Promotion module
 *   evaluates a rule against the cart it is given, and the cart it is given carries
 *   `item_subtotal` (the items before discounts): a rule `item_subtotal gte <min>`.
 * - once per customer (the nearest to "first purchase only"): a campaign whose budget is
 *   `use_by_attribute` on `customer_email` with limit 1 — each email may use one of the brand's
 *   referral codes once. Medusa cannot tell a customer without earlier orders.
 * - a cap on a percentage and "does not combine with other discounts": no Medusa field. A capped
 *   percentage is not provisioned (it would give more than the offer); individual use is not
 *   expressed.
 */

export type OfferType = 'fixed' | 'percentage' | 'free_shipping';

/** The brand's friend offer, as GET /api/v1/brand answers it. */
export interface FriendOffer {
  type: OfferType;
  value: number;
  minPurchase: number | null;
  cap: number | null;
  firstPurchaseOnly: boolean;
  /** ISO 4217, upper case: the brand's currency (a fixed amount's and the minimum's). */
  currency: string;
  storeUrl: string | null;
}

/** An advocate as GET /api/v1/advocates answers (the fields the sync reads). */
export interface AdvocateAnswer {
  advocate_id: number;
  status: 'active' | 'deactivated';
  referral_codes: string[];
  updated_at?: string;
}

/** The promotion the plugin wants for one code. */
export interface PromotionSpec {
  code: string;
  status: 'active' | 'inactive';
  application_method: { type: 'fixed' | 'percentage'; target_type: 'order' | 'shipping_methods'; allocation: 'across' | 'each'; value: number; currency_code?: string };
  /** Rules on the cart (type `rules`). */
  rules: Array<{ attribute: string; operator: 'gte'; values: string[] }>;
  /** The once-per-customer campaign, or none. */
  oncePerCustomer: boolean;
  metadata: PromotionMetadata;
}

export interface PromotionMetadata {
  /** Marks a promotion the plugin made (only those are changed). */
  referrals_brand_id: string;
  referrals_advocate_id: number;
  /** A hash of the offer it mirrors: a differing one is updated. */
  referrals_offer: string;
  /** The advocate's share link (storefrontUrl option), shown with the promotion in Medusa's admin. */
  referral_share_link: string | null;
}

/** A promotion that exists in Medusa, as the gateway reads it. */
export interface ExistingPromotion {
  id: string;
  code: string;
  status: string;
  metadata: Record<string, unknown> | null;
  rule_ids: string[];
}

/** Medusa's side: implemented with query.graph and the promotion workflows (medusa-promotions.ts). */
export interface PromotionGateway {
  findByCodes(codes: string[]): Promise<ExistingPromotion[]>;
  create(specs: PromotionSpec[]): Promise<void>;
  update(existing: ExistingPromotion, spec: PromotionSpec): Promise<void>;
  setStatus(changes: Array<{ id: string; status: 'active' | 'inactive' }>): Promise<void>;
}

export interface SyncState {
  /** ISO timestamp: the next run asks for advocates changed at or after it; null: everything. */
  updatedSince: string | null;
  offerHash: string | null;
}

export interface SyncStateStore {
  readSyncState(): Promise<SyncState>;
  saveSyncState(state: SyncState): Promise<void>;
}

/** The referral service's side (HTTP with the plugin's key: serviceReader). */
export interface ServiceReader {
  friendOffer(): Promise<FriendOffer>;
  /** One page; `serverTime`: the service's clock when it answered (its Date header). */
  advocatesChangedSince(since: string | null, cursor: number | null): Promise<{ advocates: AdvocateAnswer[]; nextCursor: number | null; serverTime: Date | null }>;
}

export interface SyncSummary {
  offer: string;
  full: boolean;
  advocates: number;
  created: number;
  updated: number;
  activated: number;
  deactivated: number;
  unchanged: number;
  /** Codes whose promotion was not made by the plugin (a coupon code, a merchant's own): left alone. */
  notOurs: string[];
  /** Why nothing was provisioned (an offer Medusa cannot express), or null. */
  skipped: string | null;
}

/**
 * How far back each run looks again: a change whose transaction began before the previous run but
 * committed after it carries an earlier updated_at; looking this far back catches it (re-reading is
 * harmless: promotions in step are left alone).
 */
export const UPDATED_SINCE_OVERLAP_MS = 2 * 60_000;
const PAGE_SIZE = 200;

/** Why Medusa cannot carry the offer, or null when it can. */
export function inexpressible(offer: FriendOffer): string | null {
  if (offer.type !== 'free_shipping' && !(offer.value > 0)) return 'the friend offer is worth nothing (referee_discount_value 0)';
  if (offer.type === 'percentage' && offer.value > 100) return 'a percentage above 100';
  if (offer.type === 'percentage' && offer.cap !== null) {
    return `a percentage capped at ${offer.cap} ${offer.currency}: a Medusa promotion has no cap, and would give more than the offer (remove the cap, or offer a fixed amount)`;
  }
  return null;
}

export function offerHash(offer: FriendOffer, storefrontUrl: string | null): string {
  const { type, value, minPurchase, firstPurchaseOnly, currency, storeUrl } = offer;
  return createHash('sha256').update(JSON.stringify([type, value, minPurchase, firstPurchaseOnly, currency, storefrontUrl ?? storeUrl])).digest('hex').slice(0, 16);
}

export function promotionSpec(code: string, advocateId: number, offer: FriendOffer, hash: string, brandId: string, storefrontUrl: string | null, active: boolean): PromotionSpec {
  const currency = offer.currency.toLowerCase();
  const application_method: PromotionSpec['application_method'] =
    offer.type === 'free_shipping'
      ? { type: 'percentage', target_type: 'shipping_methods', allocation: 'each', value: 100 }
      : offer.type === 'percentage'
        ? { type: 'percentage', target_type: 'order', allocation: 'across', value: offer.value }
        : { type: 'fixed', target_type: 'order', allocation: 'across', value: offer.value, currency_code: currency };
  return {
    code,
    status: active ? 'active' : 'inactive',
    application_method,
    rules: offer.minPurchase !== null && offer.minPurchase > 0 ? [{ attribute: 'item_subtotal', operator: 'gte', values: [String(offer.minPurchase)] }] : [],
    oncePerCustomer: offer.firstPurchaseOnly,
    metadata: {
      referrals_brand_id: brandId,
      referrals_advocate_id: advocateId,
      referrals_offer: hash,
      referral_share_link: shareLinkFor(storefrontUrl, offer.storeUrl, code),
    },
  };
}

/** One run: pull what changed, make Medusa's promotions mirror it, then remember how far it got. */
export async function syncReferralPromotions(deps: {
  service: ServiceReader;
  gateway: PromotionGateway;
  state: SyncStateStore;
  logger: DeliveryLogger;
  options: Pick<ReferralPluginOptions, 'brandId' | 'storefrontUrl'>;
  now?: () => Date;
}): Promise<SyncSummary> {
  const { service, gateway, state, logger, options } = deps;
  const offer = await service.friendOffer();
  const hash = offerHash(offer, options.storefrontUrl);
  const previous = await state.readSyncState();
  const full = previous.offerHash !== hash || previous.updatedSince === null;
  const summary: SyncSummary = { offer: hash, full, advocates: 0, created: 0, updated: 0, activated: 0, deactivated: 0, unchanged: 0, notOurs: [], skipped: inexpressible(offer) };
  if (summary.skipped) {
    logger.warn(`referral plugin: referral codes not provisioned as Medusa promotions: ${summary.skipped}`);
    return summary;
  }
  let cursor: number | null = null;
  let serverTime: Date | null = null;
  do {
    const page = await service.advocatesChangedSince(full ? null : previous.updatedSince, cursor);
    serverTime ??= page.serverTime ?? (deps.now ?? (() => new Date()))();
    summary.advocates += page.advocates.length;
    await applyPage(page.advocates, offer, hash, options, gateway, summary);
    cursor = page.nextCursor;
  } while (cursor !== null);
  await state.saveSyncState({ updatedSince: new Date(serverTime!.getTime() - UPDATED_SINCE_OVERLAP_MS).toISOString(), offerHash: hash });
  if (summary.notOurs.length > 0) {
    logger.warn(`referral plugin: ${summary.notOurs.length} referral code(s) already are promotions the plugin did not make, left as they are: ${summary.notOurs.slice(0, 10).join(', ')}`);
  }
  if (summary.created + summary.updated + summary.activated + summary.deactivated > 0) {
    logger.info(
      `referral plugin: promotions in step with the friend offer: ${summary.created} created, ${summary.updated} updated, ${summary.activated} reactivated, ${summary.deactivated} deactivated`,
    );
  }
  return summary;
}

async function applyPage(
  advocates: AdvocateAnswer[],
  offer: FriendOffer,
  hash: string,
  options: Pick<ReferralPluginOptions, 'brandId' | 'storefrontUrl'>,
  gateway: PromotionGateway,
  summary: SyncSummary,
): Promise<void> {
  const wanted = new Map<string, PromotionSpec>();
  for (const advocate of advocates) {
    for (const code of advocate.referral_codes) {
      wanted.set(code, promotionSpec(code, advocate.advocate_id, offer, hash, options.brandId, options.storefrontUrl, advocate.status === 'active'));
    }
  }
  if (wanted.size === 0) return;
  const existing = new Map((await gateway.findByCodes([...wanted.keys()])).map((promotion) => [promotion.code, promotion]));
  const toCreate: PromotionSpec[] = [];
  const statusChanges: Array<{ id: string; status: 'active' | 'inactive' }> = [];
  for (const [code, spec] of wanted) {
    const promotion = existing.get(code);
    if (!promotion) {
      if (spec.status === 'active') toCreate.push(spec);
      continue;
    }
    if (promotion.metadata?.referrals_brand_id !== options.brandId) {
      summary.notOurs.push(code);
      continue;
    }
    if (spec.status === 'active' && promotion.metadata?.referrals_offer !== hash) {
      await gateway.update(promotion, spec);
      summary.updated += 1;
    } else if (promotion.status !== spec.status) {
      statusChanges.push({ id: promotion.id, status: spec.status });
      if (spec.status === 'active') summary.activated += 1;
      else summary.deactivated += 1;
    } else {
      summary.unchanged += 1;
    }
  }
  if (toCreate.length > 0) await gateway.create(toCreate);
  summary.created += toCreate.length;
  if (statusChanges.length > 0) await gateway.setStatus(statusChanges);
}

interface BrandAnswer {
  currency?: unknown;
  store_url?: unknown;
  referee_discount_type?: unknown;
  referee_discount_value?: unknown;
  referee_min_purchase?: unknown;
  referee_discount_cap?: unknown;
  referee_first_purchase_only?: unknown;
}

const amount = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** The referral service over HTTP with the plugin's key (X-API-Key, X-Brand-ID), as the currency check reads the brand. */
export function serviceReader(options: Pick<ReferralPluginOptions, 'serviceUrl' | 'brandId' | 'apiKey' | 'requestTimeoutMs'>): ServiceReader {
  const get = async (path: string): Promise<{ body: Record<string, unknown>; date: Date | null }> => {
    const url = `${options.serviceUrl}${path}`;
    const response = await fetch(url, {
      headers: { Accept: 'application/json', 'X-API-Key': options.apiKey, 'X-Brand-ID': options.brandId },
      signal: AbortSignal.timeout(options.requestTimeoutMs),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${text.slice(0, 200)}`);
    const date = response.headers.get('date');
    return { body: JSON.parse(text) as Record<string, unknown>, date: date ? new Date(date) : null };
  };
  return {
    async friendOffer() {
      const brand = ((await get('/api/v1/brand')).body.data ?? {}) as BrandAnswer;
      const type = brand.referee_discount_type;
      if (type !== 'fixed' && type !== 'percentage' && type !== 'free_shipping') throw new Error(`GET /api/v1/brand answered an unknown referee_discount_type ${String(type)}`);
      if (typeof brand.currency !== 'string') throw new Error("GET /api/v1/brand answered without the brand's currency");
      return {
        type,
        value: Number(brand.referee_discount_value ?? 0),
        minPurchase: amount(brand.referee_min_purchase),
        cap: amount(brand.referee_discount_cap),
        firstPurchaseOnly: brand.referee_first_purchase_only === true,
        currency: brand.currency.toUpperCase(),
        storeUrl: typeof brand.store_url === 'string' ? brand.store_url : null,
      };
    },
    async advocatesChangedSince(since, cursor) {
      const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
      if (since) query.set('updated_since', since);
      if (cursor !== null) query.set('cursor', String(cursor));
      const { body, date } = await get(`/api/v1/advocates?${query}`);
      return { advocates: (body.data ?? []) as AdvocateAnswer[], nextCursor: (body.next_cursor as number | null) ?? null, serverTime: date };
    },
  };
}

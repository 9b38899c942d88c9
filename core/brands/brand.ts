import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { DEFAULT_CURRENCY, requireCurrency } from '../currency';
import type { Executor } from '../db/transaction';
import { NotFound } from '../errors';
import { discountValue, storedAmount } from '../money-schemas';
import { brandChanged } from './brand-changes';
import type { BrandStatus } from './brand-status';

export const PLANS = ['starter', 'growth', 'premier'] as const;
export type Plan = (typeof PLANS)[number];
/** How the advocate's reward and the referee's discount are given. */
export const REWARD_TYPES = ['fixed', 'percentage'] as const;
export type RewardType = (typeof REWARD_TYPES)[number];
/** The friend's offer: an amount or a percentage off, or free shipping (a value of 0; the checkout waives the shipping). */
export const REFEREE_OFFER_TYPES = ['fixed', 'percentage', 'free_shipping'] as const;
export type RefereeOfferType = (typeof REFEREE_OFFER_TYPES)[number];
/** Which of two referral links a visitor followed wins (DECISIONS.md "Visits"). */
export const ATTRIBUTION_MODELS = ['last_click', 'first_click'] as const;
export type AttributionModel = (typeof ATTRIBUTION_MODELS)[number];

/**
 * How an advocate's approved reward reaches them (docs/merchants/reward-lifecycle.md "Fulfilment"):
 * `payout` — paid by hand from Payouts; `coupon` — a single-use discount code for the amount on the
 * linked store (a brand linked to a Shopify shop starts with it); `store_credit` — credited to the
 * advocate's customer account on the store (a code for an advocate without one).
 */
export const REWARD_FULFILMENTS = ['payout', 'coupon', 'store_credit'] as const;
export type RewardFulfilment = (typeof REWARD_FULFILMENTS)[number];

/** The languages program emails are written in (core/mail/default-templates.ts); English is the default. */
export const LANGUAGES = ['en', 'fr', 'de', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];

/** https, or http on the developer's own machine (localhost, 127.0.0.1): a local trial's links work too. */
function secureOrLocal(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname));
}

/** A web origin a storefront page is served from: https (http only for localhost, a developer's machine), no path. */
export const origin = z
  .string()
  .trim()
  .max(300)
  .refine((value) => URL.canParse(value) && new URL(value).origin === value.replace(/\/+$/, '') && secureOrLocal(new URL(value)), {
    error: 'must be an origin like https://shop.example.com (https, no path; http only on localhost)',
  })
  .transform((value) => value.replace(/\/+$/, ''));

/** The store's own address, the base of share links: https (http only on localhost), an origin with an optional path. */
const storeUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((value) => URL.canParse(value) && secureOrLocal(new URL(value)) && !new URL(value).search && !new URL(value).hash, {
    error: 'must be the https address of the store, like https://shop.example.com (http only on localhost)',
  })
  .transform((value) => value.replace(/\/+$/, ''));

/**
 * The most days a duration setting may be (ten years): longer means nothing to a program, and
 * now() plus or minus it stays a timestamp PostgreSQL can hold (2,147,483,647 hold days made
 * every rewarded order a 400). Migration 20261218_0027 checks the same bounds.
 */
export const MAX_SETTING_DAYS = 3650;
/** The highest fraud limit: more conversions than this an hour or a day is no limit (0 or empty says so). */
export const MAX_FRAUD_LIMIT = 10_000;

const days = () => z.number().int({ error: 'must be a whole number of days' }).max(MAX_SETTING_DAYS, { error: `must be at most ${MAX_SETTING_DAYS} days` });
const fraudLimit = () =>
  z
    .number()
    .int({ error: 'must be a whole number' })
    .nonnegative({ error: 'must not be negative' })
    .max(MAX_FRAUD_LIMIT, { error: `must be at most ${MAX_FRAUD_LIMIT.toLocaleString('en-US')} (0 or empty: no limit)` });

export const brandSettingsSchema = z.object({
  reward_type: z.enum(REWARD_TYPES),
  reward_value: discountValue(),
  referee_discount_type: z.enum(REFEREE_OFFER_TYPES),
  referee_discount_value: discountValue(),
  /** In the brand's currency; its minor unit is checked where the currency is known (amountsInCurrency). */
  referee_min_purchase: storedAmount().nullable(),
  referee_discount_cap: storedAmount().nullable(),
  /** The offer is for a friend's first purchase only (at checkout: customers without orders; here: no earlier referred order). */
  referee_first_purchase_only: z.boolean(),
  /** The offer does not combine with other discounts at checkout. */
  referee_individual_use: z.boolean(),
  attribution_model: z.enum(ATTRIBUTION_MODELS),
  attribution_window_days: days().positive({ error: 'must be at least 1' }),
  /** A platform's test orders (Shopify `test: true`) count as sales: off by default, for trying the setup out. */
  count_test_orders: z.boolean(),
  /** Days a new reward is held (pending) before it is approved; 0 approves at once (docs/merchants/reward-lifecycle.md). */
  reward_hold_days: days().nonnegative({ error: 'must not be negative' }),
  reward_fulfilment: z.enum(REWARD_FULFILMENTS),
  /** With `coupon`: approved money waits until the advocate's spendable balance reaches this, then one code carries all of it. */
  fulfil_min_amount: storedAmount(),
  /** With `coupon`: days an unused code lasts before its money returns to the balance, to be issued again; null: no expiry. */
  reward_code_expiry_days: days().min(1, { error: 'must be at least 1' }).nullable(),
  /** Advocate claims may spend pending (held) rewards too, not only approved ones. */
  allow_pending_redemption: z.boolean(),
  /** Fraud rules (docs/merchants/fraud-review.md): each switch on by default; a flagged conversion is held for review. */
  fraud_self_referral: z.boolean(),
  fraud_velocity: z.boolean(),
  fraud_disposable_email: z.boolean(),
  /** More conversions than this per advocate in an hour, or per shopper IP in a day, are flagged; 0 or null: no limit. */
  fraud_max_per_advocate_hour: fraudLimit().nullable(),
  fraud_max_per_ip_day: fraudLimit().nullable(),
  /** How far back an advocate's own visits count for the same-IP rule. */
  fraud_ip_window_days: days().positive({ error: 'must be at least 1' }),
  /** Program emails (docs/merchants/program-emails.md): the language they are written in, who they are from, where links go. */
  language: z.enum(LANGUAGES),
  /** The From name; null: the brand's name. */
  sender_name: z.string().trim().min(1, { error: 'must not be empty' }).max(100, { error: 'must be at most 100 characters' }).nullable(),
  /** The store's address (share links); null: not known, emails give the code alone. */
  store_url: storeUrl.nullable(),
  /** Each program email on or off; re-engagement is off by default. */
  email_advocate_welcome: z.boolean(),
  /** A storefront join of an address that already joined: its code and link again, at most once a day. */
  email_advocate_link_again: z.boolean(),
  email_reward_earned: z.boolean(),
  email_reward_approved: z.boolean(),
  email_reward_paid: z.boolean(),
  /** A refund took money back from a reward the advocate was told of: what, and what they owe. */
  email_reward_reversed: z.boolean(),
  /** A `coupon` brand's advocate gets their code (docs/merchants/program-emails.md). */
  email_reward_issued: z.boolean(),
  email_friend_offer: z.boolean(),
  email_reengagement: z.boolean(),
  /** An advocate with no referral in this many days gets the re-engagement email (when it is on). */
  reengagement_days: days().positive({ error: 'must be at least 1' }),
  /** The storefront origins whose pages may call the service with the brand's publishable key (CORS); docs/merchants/storefront.md. */
  allowed_origins: z.array(origin).max(20, { error: 'at most 20 origins' }),
  /** Every paying customer becomes an advocate (with the welcome email) after their first paid order; off by default. */
  auto_enroll_customers: z.boolean(),
});
export type BrandSettings = z.infer<typeof brandSettingsSchema>;

/** How an advocate's share link is written (core/advocates/share-link.ts); a platform connector sets it. */
export const SHARE_LINK_KINDS = ['ref', 'shopify_discount'] as const;
export type ShareLinkKind = (typeof SHARE_LINK_KINDS)[number];

export interface Brand extends BrandSettings {
  brand_id: string;
  share_link_kind: ShareLinkKind;
  name: string;
  plan: Plan;
  /** ISO 4217, set at creation: the reward ledger's, claims' and fixed rewards' currency. */
  currency: string;
  status: BrandStatus;
  created_at: string;
}

interface BrandRow {
  brand_id: string;
  share_link_kind: ShareLinkKind;
  name: string;
  plan: Plan;
  currency: string;
  status: BrandStatus;
  reward_type: RewardType;
  reward_value: string;
  referee_discount_type: RefereeOfferType;
  referee_discount_value: string;
  referee_min_purchase: string | null;
  referee_discount_cap: string | null;
  referee_first_purchase_only: boolean;
  referee_individual_use: boolean;
  attribution_model: AttributionModel;
  attribution_window_days: number;
  count_test_orders: boolean;
  reward_hold_days: number;
  allow_pending_redemption: boolean;
  reward_fulfilment: RewardFulfilment;
  fulfil_min_amount: string;
  reward_code_expiry_days: number | null;
  fraud_self_referral: boolean;
  fraud_velocity: boolean;
  fraud_disposable_email: boolean;
  fraud_max_per_advocate_hour: number | null;
  fraud_max_per_ip_day: number | null;
  fraud_ip_window_days: number;
  language: Language;
  sender_name: string | null;
  store_url: string | null;
  email_advocate_welcome: boolean;
  email_advocate_link_again: boolean;
  email_reward_earned: boolean;
  email_reward_approved: boolean;
  email_reward_paid: boolean;
  email_reward_reversed: boolean;
  email_reward_issued: boolean;
  email_friend_offer: boolean;
  email_reengagement: boolean;
  reengagement_days: number;
  allowed_origins: string[];
  auto_enroll_customers: boolean;
  created_at: Date;
}

function toBrand(row: BrandRow): Brand {
  const optional = (value: string | null) => (value === null ? null : Number(value));
  return {
    brand_id: row.brand_id,
    share_link_kind: row.share_link_kind,
    name: row.name,
    plan: row.plan,
    currency: row.currency,
    status: row.status,
    reward_type: row.reward_type,
    reward_value: Number(row.reward_value),
    referee_discount_type: row.referee_discount_type,
    referee_discount_value: Number(row.referee_discount_value),
    referee_min_purchase: optional(row.referee_min_purchase),
    referee_discount_cap: optional(row.referee_discount_cap),
    referee_first_purchase_only: row.referee_first_purchase_only,
    referee_individual_use: row.referee_individual_use,
    attribution_model: row.attribution_model,
    attribution_window_days: row.attribution_window_days,
    count_test_orders: row.count_test_orders,
    reward_hold_days: row.reward_hold_days,
    allow_pending_redemption: row.allow_pending_redemption,
    reward_fulfilment: row.reward_fulfilment,
    fulfil_min_amount: Number(row.fulfil_min_amount),
    reward_code_expiry_days: row.reward_code_expiry_days,
    fraud_self_referral: row.fraud_self_referral,
    fraud_velocity: row.fraud_velocity,
    fraud_disposable_email: row.fraud_disposable_email,
    fraud_max_per_advocate_hour: row.fraud_max_per_advocate_hour,
    fraud_max_per_ip_day: row.fraud_max_per_ip_day,
    fraud_ip_window_days: row.fraud_ip_window_days,
    language: row.language,
    sender_name: row.sender_name,
    store_url: row.store_url,
    email_advocate_welcome: row.email_advocate_welcome,
    email_advocate_link_again: row.email_advocate_link_again,
    email_reward_earned: row.email_reward_earned,
    email_reward_approved: row.email_reward_approved,
    email_reward_paid: row.email_reward_paid,
    email_reward_reversed: row.email_reward_reversed,
    email_reward_issued: row.email_reward_issued,
    email_friend_offer: row.email_friend_offer,
    email_reengagement: row.email_reengagement,
    reengagement_days: row.reengagement_days,
    allowed_origins: row.allowed_origins ?? [],
    auto_enroll_customers: row.auto_enroll_customers,
    created_at: new Date(row.created_at).toISOString(),
  };
}

export interface CreateBrandInput extends Partial<BrandSettings> {
  name: string;
  plan: Plan;
  brand_id?: string;
  /** ISO 4217 (any case); default USD. */
  currency?: string;
}

export async function createBrand(db: Executor, input: CreateBrandInput): Promise<Brand> {
  const { name, plan, brand_id = randomUUID(), currency = DEFAULT_CURRENCY, ...settings } = input;
  const [row] = await db('brands')
    .insert({ brand_id, name, plan, currency: requireCurrency(currency), ...settings })
    .returning('*');
  return toBrand(row as BrandRow);
}

export async function findBrand(db: Executor, brandId: string): Promise<Brand | null> {
  const row: BrandRow | undefined = await db('brands').where({ brand_id: brandId }).first();
  return row ? toBrand(row) : null;
}

/** Several brands by id in one statement (a batch of webhook deliveries); absent ids are not in the map. */
export async function findBrands(db: Executor, brandIds: string[]): Promise<Map<string, Brand>> {
  const unique = [...new Set(brandIds)];
  const rows: BrandRow[] = unique.length === 0 ? [] : await db('brands').whereIn('brand_id', unique);
  return new Map(rows.map((row) => [row.brand_id, toBrand(row)]));
}

export async function getBrand(db: Executor, brandId: string): Promise<Brand> {
  const brand = await findBrand(db, brandId);
  if (!brand) throw new NotFound(`brand ${brandId} not found`);
  return brand;
}

export async function listBrands(db: Executor): Promise<Brand[]> {
  const rows: BrandRow[] = await db('brands').orderBy('created_at');
  return rows.map(toBrand);
}

export async function updateBrand(
  db: Executor,
  brandId: string,
  changes: Partial<BrandSettings> & { plan?: Plan; name?: string; status?: Brand['status']; currency?: string; share_link_kind?: ShareLinkKind },
): Promise<Brand> {
  const currency = changes.currency === undefined ? {} : { currency: requireCurrency(changes.currency) };
  const [row] = await db('brands')
    .where({ brand_id: brandId })
    .update({ ...changes, ...currency, updated_at: db.fn.now() })
    .returning('*');
  if (!row) throw new NotFound(`brand ${brandId} not found`);
  await brandChanged(db, brandId);
  return toBrand(row as BrandRow);
}

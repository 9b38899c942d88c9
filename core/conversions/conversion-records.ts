import type { Knex } from 'knex';
import { normalizeEmail } from '../advocates/normalize';
import type { Brand } from '../brands/brand';
import { type ClaimRecord, markClaimsConvertedBy } from '../claims/claim-records';
import { lockKey } from '../db/advisory-lock';
import { lookUpByKeys } from '../db/look-up-by-keys';
import { prepared } from '../db/prepared-statement';
import { currencyExponent } from '../currency';
import { canonicalIp } from '../fraud/client-ip';
import type { FraudReason } from '../fraud/fraud-rules';
import { openReview } from '../fraud/review-hold';
import { type ReviewSummary, reviewColumn } from '../fraud/reviews';
import { creditNewRewards } from '../ledger/reward-ledger';
import { type Minor, convertShare, decimalFromMinor, minorFromDecimal, percentOf, toMinor } from '../money';
import { type NewRewardOptions, insertNewRewards, newRewardStatus } from '../rewards/reward-records';
import { emitWebhookEvents } from '../webhooks/emit-event';
import { rewardCredited } from '../webhooks/conversion-events';
import type { ConversionInput } from './conversion-input';
import type { ConversionMoney } from './conversion-money';
import { CONVERSION_VIEW_COLUMNS, type ConversionRow, type ConversionView, toConversionView } from './conversion-view';

/** Reads and writes of the conversions table: one order is one row, whoever reports it. */

/** What a new conversion records about who referred it. */
export interface Attribution {
  advocate_id: number;
  /** null when a claim decided it: no self-referral check (the claim's own rules applied). */
  advocate_email_normalized: string | null;
  referral_code: string | null;
  claim: ClaimRecord | null;
  via: 'claim_id' | 'referral_code' | 'coupon' | 'pending_claim' | 'visit';
}

/** A recorded conversion with its fraud review (null: not held). */
export type ExistingConversion = ConversionRow & { review: ReviewSummary | null };

/** An order's key among the existing conversions of a batch. */
export function brandOrderKey(brandId: string, orderId: string): string {
  return `${brandId}:${orderId}`;
}

/**
 * The conversions already recorded for several orders (of any brands) by order_id, in one query,
 * by brandOrderKey (one index look-up per order). No row lock: a repeat only reads (so it writes no WAL); completeIfPending
 * upgrades atomically.
 */
export async function findExistingConversions(
  trx: Knex.Transaction,
  orders: Array<{ brandId: string; orderId: string }>,
): Promise<Map<string, ExistingConversion>> {
  if (orders.length === 0) return new Map();
  const keys = [...new Map(orders.map(({ brandId, orderId }) => [brandOrderKey(brandId, orderId), { brand_id: brandId, order_id: orderId }])).values()];
  const byKey = trx('conversions')
    .select([...CONVERSION_VIEW_COLUMNS, 'brand_id', reviewColumn(trx)])
    .whereRaw('conversions.brand_id = k.brand_id AND conversions.order_id = k.order_id')
    .limit(1);
  const { rows } = await prepared(trx, lookUpByKeys(trx, 'brand_id uuid, order_id text', keys, byKey));
  return new Map((rows as Array<ExistingConversion & { brand_id: string }>).map(({ brand_id, ...row }) => [brandOrderKey(brand_id, row.order_id!), row]));
}

/** The conversion already recorded for this order: by order_id, else by content hash within 24 h. */
export async function findExistingConversion(trx: Knex.Transaction, brandId: string, input: ConversionInput): Promise<ExistingConversion | undefined> {
  if (input.order_id !== null) {
    const found = await findExistingConversions(trx, [{ brandId, orderId: input.order_id }]);
    return found.get(brandOrderKey(brandId, input.order_id));
  }
  if (!input.content_hash) return undefined;
  // No order_id: the same content inside 24 h is the same order. Serialise on the hash.
  await lockKey(trx, `${brandId}:${input.content_hash}`);
  return trx('conversions')
    .select([...CONVERSION_VIEW_COLUMNS, reviewColumn(trx)])
    .where({ brand_id: brandId, content_hash: input.content_hash })
    .andWhere('created_at', '>=', trx.raw(`now() - interval '24 hours'`))
    .orderBy('created_at', 'desc')
    .forUpdate()
    .first();
}

/** A `pending` conversion reported again as `completed` is upgraded and its reward created (credited or held), once. */
export async function completeIfPending(
  trx: Knex.Transaction,
  brand: Brand,
  row: ConversionRow & { review?: ReviewSummary | null },
  input: ConversionInput,
  rewardOptions: NewRewardOptions = {},
): Promise<ConversionView> {
  if (row.status !== 'pending' || input.status !== 'completed') return toConversionView(row);
  const [updated]: ConversionRow[] = await trx('conversions')
    .where({ brand_id: brand.brand_id, conversion_id: row.conversion_id, status: 'pending' })
    .update({ status: 'completed', updated_at: trx.fn.now() })
    .returning(CONVERSION_VIEW_COLUMNS);
  if (!updated) {
    // A concurrent repeat upgraded it first (and credited it): report the row as it is now.
    const current: ConversionRow = await trx('conversions').select(CONVERSION_VIEW_COLUMNS).where({ brand_id: brand.brand_id, conversion_id: row.conversion_id }).first();
    return toConversionView(current);
  }
  // A review still open holds the reward in review; a rejected one means it is never earned.
  const review = row.review ?? null;
  if (review?.status === 'rejected') return toConversionView(updated);
  const options = { ...rewardOptions, inReview: rewardOptions.inReview === true || review?.status === 'open' };
  await trx.raw(
    `WITH conversion AS (SELECT ?::bigint AS conversion_id, ?::bigint AS advocate_id, 'completed' AS status, ?::numeric AS referrer_reward_paid),
     reward AS (?)
     ?`,
    [updated.conversion_id, updated.advocate_id, updated.referrer_reward_paid, insertNewRewards(trx, brand, 'conversion', options), creditNewRewards(trx, brand.brand_id, 'reward')],
  );
  const conversion = toConversionView(updated);
  // Webhooks (docs/webhooks.md): the upgrade earns the reward now (held, in review or approved).
  if (conversion.referrer_reward_paid > 0) await emitWebhookEvents(trx, brand.brand_id, [rewardCredited(conversion, newRewardStatus(brand, options))]);
  return conversion;
}

/**
 * The advocate's reward, in the brand's currency: a fixed reward is; a percentage is taken of the
 * order in its own currency and converted at the caller's rate, rounded once (half up).
 */
function referrerReward(brand: Brand, input: ConversionInput, attribution: Attribution, money: ConversionMoney): Minor {
  if (money.referrer_reward_paid != null) return money.referrer_reward_paid;
  // An advocate spending their own reward, or a customer using their own code, earns nothing.
  if (input.type === 'advocate') return 0;
  if (input.email !== null && attribution.advocate_email_normalized === normalizeEmail(input.email)) return 0;
  if (brand.reward_type !== 'percentage') return toMinor(brand.reward_value, money.brandExponent);
  if (money.rate === null) return percentOf(money.order_value, brand.reward_value);
  return convertShare(money.order_value, money.exponent, money.rate, money.brandExponent, brand.reward_value);
}

/**
 * Inserts the conversion with its product lines, creates its reward and the reward's ledger entry
 * (when completed; in review when the fraud rules gave `reasons`, with an open review), and marks
 * its claim converted, in one statement. undefined: another request recorded the order first.
 */
export async function insertConversion(
  trx: Knex.Transaction,
  brand: Brand,
  input: ConversionInput,
  attribution: Attribution,
  money: ConversionMoney,
  rewardOptions: NewRewardOptions = {},
  reasons: FraudReason[] = [],
): Promise<(ConversionRow & { review_id: string | null }) | undefined> {
  const decimal = (minor: Minor) => decimalFromMinor(minor, money.exponent);
  const optional = (minor: Minor | null) => (minor === null ? null : decimal(minor));
  // A claim's discount is in the brand's currency: it stands in for an order in that currency only.
  const claimDiscount = attribution.claim && money.rate === null ? minorFromDecimal(attribution.claim.discount_applied, money.exponent) : 0;
  const discountApplied = money.discount_applied ?? (money.coupon_discount > 0 ? money.coupon_discount : claimDiscount);
  const totalDiscount = money.total_discount ?? discountApplied;

  const row = {
    brand_id: brand.brand_id,
    order_id: input.order_id,
    content_hash: input.order_id === null ? (input.content_hash ?? null) : null,
    advocate_id: attribution.advocate_id,
    claim_id: attribution.claim?.claim_id ?? null,
    referral_code: attribution.referral_code,
    visitor_id: input.visitor_id ?? null,
    customer_id: input.customer_id ?? null,
    customer_ip: canonicalIp(input.customer_ip),
    email: input.email?.trim() ?? null,
    email_normalized: input.email === null ? null : normalizeEmail(input.email),
    customer_name: input.customer_name ?? null,
    type: input.type,
    status: input.status,
    order_value: decimal(money.order_value),
    order_subtotal: decimal(money.order_subtotal ?? money.order_value),
    discount_applied: decimal(discountApplied),
    total_discount: decimal(totalDiscount),
    discount_value: input.discount_value ?? null,
    discount_type: input.discount_type ?? null,
    referrer_reward_paid: decimalFromMinor(referrerReward(brand, input, attribution, money), money.brandExponent),
    referee_reward_paid: optional(money.referee_reward_paid),
    currency: money.currency,
    exchange_rate: money.rate?.text ?? null,
    source: input.source ?? null,
    coupons_applied: JSON.stringify(input.coupons_applied),
    metadata: JSON.stringify({ ...input.metadata, attributed_via: attribution.via }),
  };
  // Plain SQL rather than the query builder: its per-order compiling showed in the profile.
  const insert = trx.raw(insertText(Object.keys(row)), Object.values(row));
  // One round trip for the whole write: a lost race inserts nothing, so no lines, no credit, no claim change.
  const { rows } = await prepared(trx, trx.raw(
    `WITH conversion AS (?),
     lines AS (
       INSERT INTO conversion_products (brand_id, conversion_id, line_no, name, quantity, price, line_total, sku, attributes)
       SELECT ?, conversion.conversion_id, line.line_no, line.name, line.quantity, line.price, line.line_total, line.sku, line.attributes
       FROM conversion, jsonb_to_recordset(?::jsonb)
         AS line(line_no integer, name text, quantity integer, price numeric, line_total numeric, sku text, attributes jsonb)
     ),
     reward AS (?),
     credit AS (?),
     review AS (?),
     claim AS (?)
     SELECT conversion.*, (SELECT max(review_id) FROM review) AS review_id FROM conversion`,
    [
      insert,
      brand.brand_id,
      JSON.stringify(productRows(input, money)),
      insertNewRewards(trx, brand, 'conversion', { ...rewardOptions, inReview: rewardOptions.inReview === true || reasons.length > 0 }),
      creditNewRewards(trx, brand.brand_id, 'reward'),
      openReview(trx, brand.brand_id, 'conversion', reasons),
      markClaimsConvertedBy(trx, brand.brand_id, 'conversion'),
    ],
  ));
  return (rows as Array<ConversionRow & { review_id: string | null }>)[0];
}

/** INSERT … ON CONFLICT DO NOTHING of one conversions row with these columns: a lost race returns no row. */
function insertText(columns: string[]): string {
  return (
    `INSERT INTO conversions (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ` +
    `ON CONFLICT (brand_id, order_id) DO NOTHING RETURNING ${CONVERSION_VIEW_COLUMNS.join(', ')}`
  );
}

function productRows(input: ConversionInput, money: ConversionMoney) {
  return input.products.map((line, index) => {
    const { price, line_total } = money.lines[index]!;
    return {
      line_no: index + 1,
      name: line.name,
      quantity: line.quantity,
      price: decimalFromMinor(price, money.exponent),
      line_total: decimalFromMinor(line_total, money.exponent),
      sku: line.sku ?? null,
      attributes: line.attributes,
    };
  });
}

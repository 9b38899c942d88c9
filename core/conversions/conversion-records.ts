import type { Knex } from 'knex';
import { normalizeEmail } from '../advocates/normalize';
import type { Brand } from '../brands/brand';
import { type ClaimRecord, markClaimsConvertedBy } from '../claims/claim-records';
import { lockKey } from '../db/advisory-lock';
import { prepared } from '../db/prepared-statement';
import { creditNewConversion, creditReward } from '../ledger/reward-ledger';
import { type Cents, centsFromDecimal, decimalFromCents, percentOf, toCents } from '../money';
import { emitWebhookEvents } from '../webhooks/emit-event';
import { rewardCredited } from '../webhooks/conversion-events';
import type { ConversionInput } from './conversion-input';
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

/** The conversion already recorded for this order: by order_id, else by content hash within 24 h. */
export async function findExistingConversion(trx: Knex.Transaction, brandId: string, input: ConversionInput): Promise<ConversionRow | undefined> {
  if (input.order_id !== null) {
    // No row lock: a repeat only reads (so it writes no WAL); completeIfPending upgrades atomically.
    return prepared(trx, trx('conversions').select(CONVERSION_VIEW_COLUMNS).where({ brand_id: brandId, order_id: input.order_id }).first());
  }
  if (!input.content_hash) return undefined;
  // No order_id: the same content inside 24 h is the same order. Serialise on the hash.
  await lockKey(trx, `${brandId}:${input.content_hash}`);
  return trx('conversions')
    .select(CONVERSION_VIEW_COLUMNS)
    .where({ brand_id: brandId, content_hash: input.content_hash })
    .andWhere('created_at', '>=', trx.raw(`now() - interval '24 hours'`))
    .orderBy('created_at', 'desc')
    .forUpdate()
    .first();
}

/** A `pending` conversion reported again as `completed` is upgraded and credited, once. */
export async function completeIfPending(
  trx: Knex.Transaction,
  brand: Brand,
  row: ConversionRow,
  input: ConversionInput,
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
  const credited = await creditReward(trx, {
    brandId: brand.brand_id,
    advocateId: Number(updated.advocate_id),
    conversionId: Number(updated.conversion_id),
    amount: centsFromDecimal(updated.referrer_reward_paid),
  });
  const conversion = toConversionView(updated);
  // Webhooks (docs/webhooks.md): the upgrade credits the reward now.
  if (credited) await emitWebhookEvents(trx, brand.brand_id, [rewardCredited(conversion)]);
  return conversion;
}

function referrerReward(brand: Brand, input: ConversionInput, attribution: Attribution, orderValue: Cents): Cents {
  if (input.referrer_reward_paid != null) return toCents(input.referrer_reward_paid);
  // An advocate spending their own reward, or a customer using their own code, earns nothing.
  if (input.type === 'advocate') return 0;
  if (input.email !== null && attribution.advocate_email_normalized === normalizeEmail(input.email)) return 0;
  return brand.reward_type === 'percentage' ? percentOf(orderValue, brand.reward_value) : toCents(brand.reward_value);
}

/**
 * Inserts the conversion with its product lines, credits its reward (when completed) and marks its
 * claim converted, in one statement. undefined: another request recorded the order first.
 */
export async function insertConversion(
  trx: Knex.Transaction,
  brand: Brand,
  input: ConversionInput,
  attribution: Attribution,
): Promise<ConversionRow | undefined> {
  const orderValue = toCents(input.order_value);
  const couponDiscount = input.coupons_applied.reduce((sum, coupon) => sum + toCents(coupon.discount_amount ?? 0), 0);
  const discountApplied =
    input.discount_applied != null
      ? toCents(input.discount_applied)
      : couponDiscount > 0
        ? couponDiscount
        : attribution.claim
          ? centsFromDecimal(attribution.claim.discount_applied)
          : 0;
  const totalDiscount = input.total_discount != null ? toCents(input.total_discount) : discountApplied;
  const optional = (amount: number | null | undefined) => (amount == null ? null : decimalFromCents(toCents(amount)));

  const row = {
    brand_id: brand.brand_id,
    order_id: input.order_id,
    content_hash: input.order_id === null ? (input.content_hash ?? null) : null,
    advocate_id: attribution.advocate_id,
    claim_id: attribution.claim?.claim_id ?? null,
    referral_code: attribution.referral_code,
    visitor_id: input.visitor_id ?? null,
    email: input.email?.trim() ?? null,
    email_normalized: input.email === null ? null : normalizeEmail(input.email),
    customer_name: input.customer_name ?? null,
    type: input.type,
    status: input.status,
    order_value: decimalFromCents(orderValue),
    order_subtotal: input.order_subtotal != null ? optional(input.order_subtotal) : decimalFromCents(orderValue),
    discount_applied: decimalFromCents(discountApplied),
    total_discount: decimalFromCents(totalDiscount),
    discount_value: input.discount_value ?? null,
    discount_type: input.discount_type ?? null,
    referrer_reward_paid: decimalFromCents(referrerReward(brand, input, attribution, orderValue)),
    referee_reward_paid: optional(input.referee_reward_paid),
    currency: input.currency ?? null,
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
     credit AS (?),
     claim AS (?)
     SELECT * FROM conversion`,
    [insert, brand.brand_id, JSON.stringify(productRows(input)), creditNewConversion(trx, brand.brand_id, 'conversion'), markClaimsConvertedBy(trx, brand.brand_id, 'conversion')],
  ));
  return (rows as ConversionRow[])[0];
}

/** INSERT … ON CONFLICT DO NOTHING of one conversions row with these columns: a lost race returns no row. */
function insertText(columns: string[]): string {
  return (
    `INSERT INTO conversions (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ` +
    `ON CONFLICT (brand_id, order_id) DO NOTHING RETURNING ${CONVERSION_VIEW_COLUMNS.join(', ')}`
  );
}

function productRows(input: ConversionInput) {
  return input.products.map((line, index) => {
    const price = toCents(line.price);
    return {
      line_no: index + 1,
      name: line.name,
      quantity: line.quantity,
      price: decimalFromCents(price),
      line_total: decimalFromCents(line.line_total != null ? toCents(line.line_total) : price * line.quantity),
      sku: line.sku ?? null,
      attributes: line.attributes,
    };
  });
}

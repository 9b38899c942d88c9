import { z } from 'zod';
import { DISCOUNT_TYPES } from '../../core/claims/discount-type';
import type { ConversionInput } from '../../core/conversions/conversion-input';
import { REFERRAL_TYPES } from '../../core/conversions/referral-type';
import { amountFromMinor, decimalsOf, toMinor } from '../../core/money';
import { contentHash } from './content-hash';
import { amount, couponEntry, currency, customerId, discountValue, email, exchangeRate, identifier, ipAddress, lines, looseIdentifier, metadata, orderId, recordId, text } from './fields';
import { itemLines, productLines } from './product-line';

/** Fields both conversion forms accept. */
const common = {
  customer_name: text().optional(),
  referral_code: identifier().optional(),
  visitor_id: looseIdentifier().optional(),
  /** For the fraud rules: your customer id and the shopper's IP (a conversion is reported by your server, not the shopper's browser). */
  customer_id: customerId().optional(),
  ip_address: ipAddress().optional(),
  claim_id: recordId().optional(),
  referrer_reward_paid: amount().optional(),
  referee_reward_paid: amount().optional(),
  discount_value: discountValue().optional(),
  discount_type: z.enum(DISCOUNT_TYPES).optional(),
  type: z.enum(REFERRAL_TYPES).optional(),
  products: productLines().optional(),
  items: itemLines().optional(),
  coupons_applied: lines(couponEntry()).optional(),
  source: text().optional(),
  status: z.enum(['completed', 'pending']).optional(),
  currency: currency().optional(),
  exchange_rate: exchangeRate().optional(),
  metadata: metadata().optional(),
};

/** Primary form: email (or customer_email), order_id and order_value. */
export const conversionPrimarySchema = z
  .object({
    ...common,
    email: email().optional(),
    customer_email: email().optional(),
    order_id: orderId(),
    order_value: amount(),
    order_subtotal: amount().optional(),
    discount_applied: amount().optional(),
    total_discount: amount().optional(),
  })
  .superRefine((body, ctx) => {
    if (body.email === undefined && body.customer_email === undefined) {
      ctx.addIssue({ code: 'custom', path: ['email'], message: 'email (or customer_email) is required' });
    }
  });

/** Alternate form: customer_email, order_total, tax, shipping and discount (0 when not applicable). */
export const conversionAlternateSchema = z
  .object({
    ...common,
    customer_email: email().optional(),
    email: email().optional(),
    order_id: orderId().optional(),
    order_total: amount(),
    tax: amount(),
    shipping: amount(),
    discount: amount(),
  })
  .superRefine((body, ctx) => {
    if (body.customer_email === undefined && body.email === undefined) {
      ctx.addIssue({ code: 'custom', path: ['customer_email'], message: 'customer_email is required' });
    }
  });

type Common = z.infer<typeof conversionPrimarySchema> | z.infer<typeof conversionAlternateSchema>;

function commonInput(body: Common) {
  return {
    email: (body.email ?? body.customer_email)!,
    customer_name: body.customer_name,
    referral_code: body.referral_code,
    visitor_id: body.visitor_id,
    customer_id: body.customer_id,
    customer_ip: body.ip_address,
    claim_id: body.claim_id,
    referrer_reward_paid: body.referrer_reward_paid,
    referee_reward_paid: body.referee_reward_paid,
    discount_value: body.discount_value,
    discount_type: body.discount_type,
    type: body.type ?? 'referral',
    products: [...(body.products ?? []), ...(body.items ?? [])],
    coupons_applied: body.coupons_applied ?? [],
    source: body.source,
    status: body.status ?? 'completed',
    currency: body.currency,
    exchange_rate: body.exchange_rate,
    metadata: body.metadata ?? {},
  } satisfies Partial<ConversionInput>;
}

/** Either form of POST /api/v1/track/conversion → the one input recordConversion takes. */
export function parseConversionRequest(body: Record<string, unknown>): ConversionInput {
  const isAlternate = body.order_value === undefined && body.order_total !== undefined;
  if (!isAlternate) {
    const primary = conversionPrimarySchema.parse(body);
    return {
      ...commonInput(primary),
      order_id: primary.order_id,
      order_value: primary.order_value,
      order_subtotal: primary.order_subtotal,
      discount_applied: primary.discount_applied,
      total_discount: primary.total_discount,
    };
  }
  const alternate = conversionAlternateSchema.parse(body);
  // Exact at as many decimals as the amounts have (their currency's are checked by the use case).
  const places = Math.max(...[alternate.order_total, alternate.tax, alternate.shipping].map(decimalsOf));
  const minor = (value: number) => toMinor(value, places);
  const subtotal = minor(alternate.order_total) - minor(alternate.tax) - minor(alternate.shipping);
  return {
    ...commonInput(alternate),
    order_id: alternate.order_id ?? null,
    content_hash: alternate.order_id === undefined ? contentHash(body) : null,
    order_value: alternate.order_total,
    order_subtotal: amountFromMinor(Math.max(0, subtotal), places),
    discount_applied: alternate.discount,
    total_discount: alternate.discount,
  };
}

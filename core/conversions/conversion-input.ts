import { z } from 'zod';
import { DISCOUNT_TYPES } from '../claims/discount-type';
import { REPORTED_STATUSES } from './conversion-status';
import { REFERRAL_TYPES } from './referral-type';

/**
 * The one input a conversion is recorded from, whoever reports it (REST primary or alternate
 * form, Shopify, Medusa). Amounts are major units as JSON numbers; the use case makes them exact.
 */
export const productLineSchema = z.object({
  name: z.string(),
  quantity: z.number().int(),
  /** Unit price: revenue = price x quantity unless line_total says otherwise. */
  price: z.number(),
  line_total: z.number().optional(),
  sku: z.string().optional(),
  /** Every other field the caller sent (variant, category_path, image_url, ...). */
  attributes: z.record(z.string(), z.unknown()).default({}),
});
export type ProductLine = z.infer<typeof productLineSchema>;

export const couponEntrySchema = z.object({
  code: z.string(),
  discount_amount: z.number().optional(),
  discount_tax: z.number().optional(),
});
export type CouponEntry = z.infer<typeof couponEntrySchema>;

export const conversionInputSchema = z.object({
  /** null only for a platform order without one (attributed by its referral code); the REST API requires it. */
  email: z.string().nullable(),
  customer_name: z.string().nullish(),
  /** null: the alternate form without order_id, deduplicated by content_hash for 24 h. */
  order_id: z.string().nullable(),
  content_hash: z.string().nullish(),
  order_value: z.number(),
  order_subtotal: z.number().nullish(),
  discount_applied: z.number().nullish(),
  total_discount: z.number().nullish(),
  referral_code: z.string().nullish(),
  visitor_id: z.string().nullish(),
  /** The platform's or the caller's id of the customer, and the shopper's IP (for the fraud rules). */
  customer_id: z.string().nullish(),
  customer_ip: z.string().nullish(),
  claim_id: z.number().int().nullish(),
  referrer_reward_paid: z.number().nullish(),
  referee_reward_paid: z.number().nullish(),
  discount_value: z.number().nullish(),
  discount_type: z.enum(DISCOUNT_TYPES).nullish(),
  type: z.enum(REFERRAL_TYPES).default('referral'),
  products: z.array(productLineSchema).default([]),
  coupons_applied: z.array(couponEntrySchema).default([]),
  source: z.string().nullish(),
  status: z.enum(REPORTED_STATUSES).default('completed'),
  /** ISO 4217; null: the brand's currency. */
  currency: z.string().nullish(),
  /** Brand-currency units per 1 unit of `currency` (exact decimal text); required when that is not the brand's. */
  exchange_rate: z.union([z.string(), z.number()]).nullish(),
  metadata: z.record(z.string(), z.unknown()).default({}),
});
export type ConversionInput = z.infer<typeof conversionInputSchema>;
/** What a caller builds before defaults are applied. */
export type ConversionInputDraft = z.input<typeof conversionInputSchema>;

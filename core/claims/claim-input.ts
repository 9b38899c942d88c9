import { z } from 'zod';
import { DISCOUNT_TYPES, REFERRAL_TYPES, couponEntrySchema, productLineSchema } from '../conversions/conversion-input';

/**
 * The one input a claim is created from, whoever reports it (REST claim in either form, /convert,
 * Shopify, Medusa). Amounts are major units as JSON numbers; createClaim makes them exact.
 */
export const claimInputSchema = z.object({
  referral_code: z.string(),
  email: z.string(),
  customer_name: z.string().nullish(),
  phone: z.string().nullish(),
  visitor_id: z.string().nullish(),
  order_id: z.string().nullish(),
  /** Order value before the discount. */
  raw_value: z.number().nullish(),
  /** Order value after the discount. */
  claim_value: z.number().nullish(),
  discount_value: z.number().nullish(),
  discount_type: z.enum(DISCOUNT_TYPES).nullish(),
  type: z.enum(REFERRAL_TYPES).default('referral'),
  products: z.array(productLineSchema).default([]),
  coupons_applied: z.array(couponEntrySchema).default([]),
  metadata: z.record(z.string(), z.unknown()).default({}),
  source: z.string().nullish(),
});
export type ClaimInput = z.infer<typeof claimInputSchema>;
/** What a caller builds before defaults are applied. */
export type ClaimInputDraft = z.input<typeof claimInputSchema>;

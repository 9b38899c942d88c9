import type { CouponEntry, ProductLine } from '../conversions/conversion-input';
import type { ReferralType } from '../conversions/referral-type';
import type { DiscountType } from './discount-type';

/**
 * The one input a claim is created from, whoever reports it (REST claim in either form, /convert,
 * a platform's discount redemption). The callers' zod schemas validate it; amounts are major units
 * as JSON numbers, which createClaim makes exact.
 */
export interface ClaimInput {
  referral_code: string;
  email: string;
  customer_name?: string | null;
  phone?: string | null;
  visitor_id?: string | null;
  order_id?: string | null;
  /** Order value before the discount. */
  raw_value?: number | null;
  /** Order value after the discount. */
  claim_value?: number | null;
  discount_value?: number | null;
  discount_type?: DiscountType | null;
  type: ReferralType;
  products: ProductLine[];
  coupons_applied: CouponEntry[];
  metadata: Record<string, unknown>;
  source?: string | null;
  /** ISO 4217; a claim's amounts are in the brand's currency, so another one is refused. */
  currency?: string | null;
}

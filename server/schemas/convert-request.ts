import { z } from 'zod';
import type { ClaimInput } from '../../core/claims/claim-input';
import { amount, email, identifier, metadata, text } from './fields';

/** POST /api/v1/convert: a simplified claim from an external webhook source. */
export const convertRequestSchema = z.object({
  referral_code: identifier(),
  email: email(),
  /** Order value before the discount. */
  value: amount().default(0),
  customer_name: text().optional(),
  metadata: metadata().optional(),
});

/** value → raw_value; the brand's referee discount gives claim_value and discount_applied. */
export function parseConvertRequest(body: Record<string, unknown>): ClaimInput {
  const request = convertRequestSchema.parse(body);
  return {
    referral_code: request.referral_code,
    email: request.email,
    customer_name: request.customer_name,
    raw_value: request.value,
    type: 'referral',
    products: [],
    coupons_applied: [],
    metadata: request.metadata ?? {},
    source: 'convert',
  };
}

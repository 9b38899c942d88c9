import { z } from 'zod';
import type { ClaimInput } from '../../core/claims/claim-input';
import { DISCOUNT_TYPES } from '../../core/claims/discount-type';
import { REFERRAL_TYPES } from '../../core/conversions/referral-type';
import { amount, couponEntry, currency, discountValue, identifier, lines, looseIdentifier, mailbox, metadata, orderId, text } from './fields';
import { itemLines, productLines } from './product-line';

/**
 * POST /api/v1/track/claim, both forms: email/customer_email, name/customer_name, type/claim_type,
 * products/items (the alternate form also sends phone).
 */
export const claimRequestSchema = z
  .object({
    referral_code: identifier(),
    // The friend_offer email goes to it (docs/merchants/program-emails.md): an address that cannot receive mail is refused here.
    email: mailbox().optional(),
    customer_email: mailbox().optional(),
    name: text().optional(),
    customer_name: text().optional(),
    phone: text().optional(),
    visitor_id: looseIdentifier().optional(),
    order_id: orderId().optional(),
    raw_value: amount().optional(),
    claim_value: amount().optional(),
    discount_value: discountValue().optional(),
    discount_type: z.enum(DISCOUNT_TYPES).optional(),
    type: z.enum(REFERRAL_TYPES).optional(),
    claim_type: z.enum(REFERRAL_TYPES).optional(),
    products: productLines().optional(),
    items: itemLines().optional(),
    coupons_applied: lines(couponEntry()).optional(),
    source: text().optional(),
    currency: currency().optional(),
    metadata: metadata().optional(),
  })
  .superRefine((body, ctx) => {
    if (body.email === undefined && body.customer_email === undefined) {
      ctx.addIssue({ code: 'custom', path: ['email'], message: 'email (or customer_email) is required' });
    }
  });

export function parseClaimRequest(body: Record<string, unknown>): ClaimInput {
  const request = claimRequestSchema.parse(body);
  return {
    referral_code: request.referral_code,
    email: (request.email ?? request.customer_email)!,
    customer_name: request.customer_name ?? request.name,
    phone: request.phone,
    visitor_id: request.visitor_id,
    order_id: request.order_id,
    raw_value: request.raw_value,
    claim_value: request.claim_value,
    discount_value: request.discount_value,
    discount_type: request.discount_type,
    type: request.type ?? request.claim_type ?? 'referral',
    products: [...(request.products ?? []), ...(request.items ?? [])],
    coupons_applied: request.coupons_applied ?? [],
    metadata: request.metadata ?? {},
    source: request.source,
    currency: request.currency,
  };
}

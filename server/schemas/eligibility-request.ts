import { z } from 'zod';
import { REFERRAL_TYPES } from '../../core/conversions/referral-type';
import type { EligibilityQuery } from '../../core/eligibility/check-eligibility';
import { email, identifier } from './fields';

/** POST /api/v1/track/check-eligibility: customer_email (or email), referral_code, type. */
export const eligibilityRequestSchema = z
  .object({
    referral_code: identifier(),
    customer_email: email().optional(),
    email: email().optional(),
    type: z.enum(REFERRAL_TYPES).optional(),
  })
  .superRefine((body, ctx) => {
    if (body.customer_email === undefined && body.email === undefined) {
      ctx.addIssue({ code: 'custom', path: ['customer_email'], message: 'customer_email is required' });
    }
  });

export function parseEligibilityRequest(body: Record<string, unknown>): EligibilityQuery {
  const request = eligibilityRequestSchema.parse(body);
  return { referral_code: request.referral_code, customer_email: (request.customer_email ?? request.email)!, type: request.type };
}

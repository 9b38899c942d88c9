import { z } from 'zod';

/** Visitor ids are UUIDs (any version: a caller may have generated its own). */
export const VISITOR_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const visitInputSchema = z.object({
  referral_code: z.string(),
  /** Generated (UUID v4) when omitted. */
  visitor_id: z.string().nullish(),
  /** The code already stored on the visitor's device. */
  existing_code: z.string().nullish(),
  share_channel: z.string().nullish(),
  landing_page: z.string().nullish(),
  utm_source: z.string().nullish(),
  utm_medium: z.string().nullish(),
  utm_campaign: z.string().nullish(),
  /** The visitor's IP (the body's ip_address, else the request's client IP), for the fraud rules. */
  ip_address: z.string().nullish(),
});
export type VisitInput = z.infer<typeof visitInputSchema>;

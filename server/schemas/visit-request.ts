import { z } from 'zod';
import { VISITOR_ID_PATTERN, type VisitInput } from '../../core/visits/visit-input';
import { identifier, ipAddress, looseIdentifier, text } from './fields';

/** POST /api/v1/track/visit; utm_* is the alternate form. A device's empty storage may send null. */
export const visitRequestSchema = z.object({
  referral_code: identifier(),
  visitor_id: identifier().regex(VISITOR_ID_PATTERN, { error: 'must be a UUID' }).nullish(),
  existing_code: looseIdentifier().nullish(),
  share_channel: text().optional(),
  landing_page: text().optional(),
  utm_source: text().optional(),
  utm_medium: text().optional(),
  utm_campaign: text().optional(),
  /** The visitor's IP when your server reports the click for them; else the request's own client IP. */
  ip_address: ipAddress().optional(),
});

export function parseVisitRequest(body: Record<string, unknown>): VisitInput {
  return visitRequestSchema.parse(body);
}

import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { findReferralCode } from '../advocates/advocates';
import { normalizeCode } from '../advocates/normalize';
import type { Brand } from '../brands/brand';
import { Invalid, NotFound } from '../errors';
import { canonicalIp } from '../fraud/client-ip';
import { VISITOR_ID_PATTERN, type VisitInput } from './visit-input';

export interface VisitResult {
  /** Whether the device should store `code`. */
  store_code: boolean;
  /** Whether the device should drop its existing code. */
  clear_existing: boolean;
  /** The code the device should keep. */
  code: string;
  referrer_first_name: string;
  visitor_id: string;
}

/**
 * Records a click on a referral link and tells the device which code to keep (DECISIONS.md
 * "Visits"). The stored visit carries the kept code, so a later conversion with only the
 * visitor_id is attributed the way the brand's attribution model says.
 */
export async function recordVisit(trx: Knex.Transaction, brand: Brand, input: VisitInput): Promise<VisitResult> {
  if (input.visitor_id != null && !VISITOR_ID_PATTERN.test(input.visitor_id)) throw new Invalid('visitor_id must be a UUID');
  const clicked = await findReferralCode(trx, brand.brand_id, input.referral_code);
  if (!clicked) throw new NotFound(`referral_code ${input.referral_code} not found`);
  const visitorId = (input.visitor_id ?? randomUUID()).toLowerCase();

  const existingCode = input.existing_code?.trim() || null;
  const sameCode = existingCode !== null && normalizeCode(existingCode) === normalizeCode(clicked.code);
  const existing = existingCode !== null && !sameCode ? await findReferralCode(trx, brand.brand_id, existingCode) : null;
  const keepExisting = existing !== null && brand.attribution_model === 'first_click';
  const kept = keepExisting ? existing : clicked;

  await trx('visits').insert({
    brand_id: brand.brand_id,
    visitor_id: visitorId,
    code_normalized: normalizeCode(kept.code),
    advocate_id: kept.advocate_id,
    clicked_code: clicked.code,
    share_channel: input.share_channel ?? input.utm_source ?? null,
    landing_page: input.landing_page ?? null,
    utm_source: input.utm_source ?? null,
    utm_medium: input.utm_medium ?? null,
    utm_campaign: input.utm_campaign ?? null,
    ip_address: canonicalIp(input.ip_address),
  });

  return {
    store_code: !keepExisting,
    // A different existing code is dropped unless it is the one kept (an unknown one always is).
    clear_existing: existingCode !== null && !sameCode && !keepExisting,
    code: kept.code,
    referrer_first_name: kept.advocate_first_name,
    visitor_id: visitorId,
  };
}

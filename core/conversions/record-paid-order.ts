import type { Knex } from 'knex';
import { normalizeEmail } from '../advocates/normalize';
import type { Brand } from '../brands/brand';
import { assertBrandActive } from '../brands/brand-status';
import { planAllows } from '../brands/plan-features';
import { type ClaimRecord, newestPendingClaim } from '../claims/claim-records';
import { claimForRedemption } from '../claims/redemption-claim';
import { type OrderCodes, type Referrer, findReferrer } from './attribute-conversion';
import type { ConversionInput } from './conversion-input';
import { conversionMoney } from './conversion-money';
import { type Attribution, completeIfPending, findExistingConversion, insertConversion } from './conversion-records';
import { type ConversionView, toConversionView } from './conversion-view';

export interface PaidOrderInput extends OrderCodes {
  conversion: ConversionInput;
  /** Where a claim for a redeemed referral discount code comes from (`shopify`, `medusa`); none: no claim. */
  claim_source?: string | null;
}

export type ConversionResult =
  | { attributed: false }
  | { attributed: true; duplicate: boolean; conversion: ConversionView };

export interface PaidOrderResult {
  result: ConversionResult;
  /** The claim the conversion is linked to. */
  claim_id: number | null;
}

/**
 * The one way a paid order is recorded, whoever reports it (POST /track/conversion, Shopify,
 * Medusa): the brand must be active; a repeat of an order returns the stored conversion
 * (`duplicate`, even when both requests race: the unique key decides); otherwise its referrer is
 * resolved once, a redeemed referral discount code becomes a claim where the plan has claims, and
 * the conversion, its reward credit and its claim's status are written together.
 */
export async function recordPaidOrder(trx: Knex.Transaction, brand: Brand, order: PaidOrderInput): Promise<PaidOrderResult> {
  assertBrandActive(brand);
  const input = order.conversion;
  const existing = await findExistingConversion(trx, brand.brand_id, input);
  if (existing) return duplicateOf(await completeIfPending(trx, brand, existing, input));
  // Checked before anything is written: a bad amount or currency is the caller's 4xx (a repeat is answered as before).
  const money = conversionMoney(brand, input);

  const referrer = await findReferrer(trx, brand, input, order);
  if (!referrer) return { result: { attributed: false }, claim_id: null };
  const attribution = await attributionOf(trx, brand, order, referrer);

  const inserted = await insertConversion(trx, brand, input, attribution, money);
  if (!inserted) {
    // Lost a race on (brand_id, order_id): the other request's row is committed now.
    const winner = await findExistingConversion(trx, brand.brand_id, input);
    if (!winner) throw new Error(`conversion for order ${input.order_id} vanished after a conflict`);
    return duplicateOf(await completeIfPending(trx, brand, winner, input));
  }
  return { result: { attributed: true, duplicate: false, conversion: toConversionView(inserted) }, claim_id: attribution.claim?.claim_id ?? null };
}

function duplicateOf(conversion: ConversionView): PaidOrderResult {
  return { result: { attributed: true, duplicate: true, conversion }, claim_id: conversion.claim_id };
}

/** The claim a code-referred order links to: its redemption's claim when one is due, else the customer's pending claim. */
async function attributionOf(trx: Knex.Transaction, brand: Brand, order: PaidOrderInput, referrer: Referrer): Promise<Attribution> {
  if ('claim' in referrer) {
    const { claim } = referrer;
    return { advocate_id: claim.advocate_id, advocate_email_normalized: null, referral_code: claim.referral_code, claim, via: referrer.via };
  }
  const { owner } = referrer;
  const email = order.conversion.email;
  // A claim is about a customer's email: an email-less platform order is a conversion without one.
  if (email === null) return { advocate_id: owner.advocate_id, advocate_email_normalized: owner.advocate_email_normalized, referral_code: owner.code, claim: null, via: referrer.via };
  const claimSource = referrer.redeemed && planAllows(brand.plan, 'claims') ? order.claim_source : null;
  const claim: ClaimRecord | null = claimSource
    ? await claimForRedemption(trx, brand, owner, { ...order.conversion, email }, claimSource)
    : await newestPendingClaim(trx, brand.brand_id, normalizeEmail(email), brand.attribution_window_days, owner.advocate_id);
  return { advocate_id: owner.advocate_id, advocate_email_normalized: owner.advocate_email_normalized, referral_code: owner.code, claim, via: referrer.via };
}

import type { Knex } from 'knex';
import { findReferralCode } from '../advocates/advocates';
import type { Brand } from '../brands/brand';
import { createClaim } from '../claims/create-claim';
import { Conflict } from '../errors';
import { decimalFromCents, toCents } from '../money';
import type { ConversionInput } from './conversion-input';
import { type ConversionResult, recordConversion } from './record-conversion';

export interface PaidOrderInput {
  conversion: ConversionInput;
  /** Discount codes the platform says were redeemed on the order. */
  redeemed_codes: string[];
  /** Where the claim came from (`shopify`, `medusa`). */
  claim_source: string;
}

/** Plans whose brands record claims (the claim endpoint is Premier-only, and so are redemptions). */
const PLANS_WITH_CLAIMS: ReadonlyArray<Brand['plan']> = ['premier'];

/**
 * A platform's paid order: when a redeemed discount code is a referral code and the plan allows
 * claims, the redemption is recorded as a claim (or the customer's claim of the last 24 h is
 * reused), then the conversion is recorded linked to it — the same calls the REST API makes.
 */
export async function recordPaidOrder(
  trx: Knex.Transaction,
  brand: Brand,
  input: PaidOrderInput,
): Promise<{ result: ConversionResult; claim_id: number | null }> {
  let conversion = input.conversion;
  if (conversion.claim_id == null && PLANS_WITH_CLAIMS.includes(brand.plan) && !(await alreadyRecorded(trx, brand, conversion))) {
    const claimId = await claimForRedemption(trx, brand, conversion, input);
    if (claimId !== null) conversion = { ...conversion, claim_id: claimId };
  }
  const result = await recordConversion(trx, brand, conversion);
  return { result, claim_id: result.attributed ? result.conversion.claim_id : null };
}

async function alreadyRecorded(trx: Knex.Transaction, brand: Brand, conversion: ConversionInput): Promise<boolean> {
  if (conversion.order_id === null) return false;
  const row = await trx('conversions').select('conversion_id').where({ brand_id: brand.brand_id, order_id: conversion.order_id }).first();
  return row !== undefined;
}

async function claimForRedemption(
  trx: Knex.Transaction,
  brand: Brand,
  conversion: ConversionInput,
  input: PaidOrderInput,
): Promise<number | null> {
  for (const code of input.redeemed_codes) {
    const owner = await findReferralCode(trx, brand.brand_id, code);
    if (!owner) continue;
    const paid = toCents(conversion.order_value);
    const discount = toCents(conversion.total_discount ?? conversion.discount_applied ?? 0);
    try {
      const claim = await createClaim(
        trx,
        brand,
        {
          referral_code: owner.code,
          email: conversion.email,
          customer_name: conversion.customer_name,
          order_id: conversion.order_id,
          raw_value: Number(decimalFromCents(paid + discount)),
          claim_value: conversion.order_value,
          type: 'referral',
          products: conversion.products,
          coupons_applied: conversion.coupons_applied,
          metadata: {},
          source: input.claim_source,
        },
        // The platform already granted the discount: record what happened, do not refuse it.
        { enforceEligibility: false },
      );
      return claim.claim_id;
    } catch (error) {
      if (error instanceof Conflict && typeof error.details.claim_id === 'number') return error.details.claim_id;
      throw error;
    }
  }
  return null;
}


import type { Knex } from 'knex';
import { findReferralCode } from '../../../core/advocates/advocates';
import type { ConversionInput } from '../../../core/conversions/conversion-input';
import { recordPaidOrder } from '../../../core/conversions/record-paid-order';
import { type MappedPaidOrder, mapPaidOrder } from '../map-paid-order';
import type { TopicHandler } from './topic-handler';

/**
 * orders/paid → a conversion, and a claim when a referral code was redeemed as a discount code
 * (premier plans): the same core call every other channel makes.
 */
export const handleOrdersPaid: TopicHandler = async (trx, brand, delivery, body) => {
  const mapped = mapPaidOrder(body, delivery.shop_domain);
  if (!mapped) return { outcome: 'ignored: the order has no customer email' };
  const conversion = await withCarriedCode(trx, brand.brand_id, mapped);
  const { result, claim_id } = await recordPaidOrder(trx, brand, {
    conversion,
    redeemed_codes: mapped.redeemed_codes,
    claim_source: 'shopify',
  });
  if (!result.attributed) return { outcome: 'not_attributed', result: { order_id: conversion.order_id } };
  return {
    outcome: result.duplicate ? 'duplicate_order' : 'conversion_recorded',
    result: {
      order_id: conversion.order_id,
      conversion_id: result.conversion.conversion_id,
      claim_id,
      referral_code: result.conversion.referral_code,
      status: result.conversion.status,
    },
  };
};

/**
 * Attribution order: a redeemed referral discount code (the core's coupon step) first; without
 * one, the first code the shopper carried (cart attribute, then landing page) that the brand knows.
 * Unknown carried codes are ignored: a shopper's URL is not a claim we were asked to verify.
 */
async function withCarriedCode(trx: Knex.Transaction, brandId: string, mapped: MappedPaidOrder): Promise<ConversionInput> {
  for (const code of mapped.redeemed_codes) {
    if (await findReferralCode(trx, brandId, code)) return mapped.conversion;
  }
  for (const code of mapped.carried_codes) {
    const owner = await findReferralCode(trx, brandId, code);
    if (owner) return { ...mapped.conversion, referral_code: owner.code };
  }
  return mapped.conversion;
}

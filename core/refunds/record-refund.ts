import type { Knex } from 'knex';
import type { Brand } from '../brands/brand';
import { type ClaimRecord, findAdvocateClaimOfOrder, findClaim } from '../claims/claim-records';
import { claimStatusFor } from '../claims/claim-status';
import type { ConversionStatus } from '../conversions/conversion-status';
import { currencyExponent, requireCurrency } from '../currency';
import { Invalid, NotFound, Unprocessable } from '../errors';
import { returnRedemption } from '../ledger/reward-ledger';
import { type Minor, amountFromMinor, decimalFromMinor, exactMinor, minorFromDecimal, prorate } from '../money';
import { type RewardReversal, refundReward } from '../rewards/reward-transitions';
import { emitWebhookEvents } from '../webhooks/emit-event';
import { refundEvents } from '../webhooks/conversion-events';
import type { RefundInput, RefundResult } from './refund-input';

/** The conversions columns a refund reads (CONVERSION_COLUMNS), as the driver returns them. */
interface RefundedConversionRow {
  conversion_id: string;
  claim_id: string | null;
  advocate_id: string;
  order_id: string | null;
  order_value: string;
  refunded_total: string;
  status: ConversionStatus;
  currency: string | null;
  created_at: Date;
}

/** An earlier refund with the same refund_id. */
interface RefundRow {
  refund_id: string | null;
  amount: string;
}

interface Target {
  conversion: RefundedConversionRow | null;
  claim: ClaimRecord | null;
  /** The order's currency (a claim's is the brand's) and its exponent: the refund is in it. */
  currency: string;
  exponent: number;
}

/**
 * Records a full or partial refund against a conversion (and its claim), reversing the
 * advocate's reward pro rata in the ledger (held or approved; a full refund voids a held reward). A repeated refund_id changes nothing.
 */
export async function recordRefund(trx: Knex.Transaction, brand: Brand, input: RefundInput): Promise<RefundResult> {
  const brandId = brand.brand_id;
  const target = await findTarget(trx, brand, input);
  assertSameCurrency(input, target);
  // Checked after the row lock, so two deliveries of one refund_id cannot both pass.
  if (input.refund_id) {
    const earlier: RefundRow | undefined = await trx('refunds').select('refund_id', 'amount').where({ brand_id: brandId, refund_id: input.refund_id }).first();
    if (earlier) return duplicateResult(target, earlier);
  }

  const record = target.conversion ?? target.claim!;
  const { exponent } = target;
  const amountOf = (minor: Minor) => amountFromMinor(minor, exponent);
  const decimal = (minor: Minor) => decimalFromMinor(minor, exponent);
  const orderValue = refundableValue(target);
  const refundedBefore = minorFromDecimal(record.refunded_total, exponent);
  const remaining = orderValue - refundedBefore;
  const amount = refundAmount(input, target, refundedBefore, remaining);
  if (amount > remaining) {
    throw new Invalid(`refund_amount ${amountOf(amount)} exceeds the remaining refundable amount ${amountOf(remaining)}`);
  }
  const refundedTotal = refundedBefore + amount;
  const full = input.is_full_refund === true || refundedTotal >= orderValue;
  const status: ConversionStatus = input.new_status ?? (full ? 'refunded' : 'partial_refund');

  const [refund] = (await trx('refunds')
    .insert({
      brand_id: brandId,
      refund_id: input.refund_id ?? null,
      conversion_id: target.conversion ? target.conversion.conversion_id : null,
      claim_id: target.claim?.claim_id ?? null,
      amount: decimal(amount),
      is_full_refund: full,
      status_after: status,
      reason: input.refund_reason ?? null,
      referral_code: input.referral_code ?? null,
      source: input.source ?? null,
      metadata: JSON.stringify(input.metadata),
    })
    .returning('refund_pk')) as [{ refund_pk: string }];

  // The reward ledger is in the brand's currency: reversals round at its minor unit.
  const brandExponent = currencyExponent(brand.currency);
  let reversal: RewardReversal = { reversed: 0, owed: 0 };
  if (target.conversion) {
    await trx('conversions')
      .where({ brand_id: brandId, conversion_id: target.conversion.conversion_id })
      .update({ status, refunded_total: decimal(refundedTotal), updated_at: trx.fn.now() });
    reversal = await refundReward(trx, brandId, {
      conversionId: Number(target.conversion.conversion_id),
      refundPk: Number(refund.refund_pk),
      refundedTotal,
      orderValue,
      full,
      exponent: brandExponent,
      order: { value: decimal(orderValue), currency: target.currency, placedAt: new Date(target.conversion.created_at).toISOString() },
    });
  }
  if (target.claim) {
    await trx('claims')
      .where({ brand_id: brandId, claim_id: target.claim.claim_id })
      .update({ status: claimStatusFor(status), refunded_total: claimRefundedTotal(brand, target, refundedTotal, orderValue, full), updated_at: trx.fn.now() });
    if (target.claim.type === 'advocate') {
      // The advocate spent their reward on this order: a refund gives it back, pro rata.
      await returnRedemption(trx, {
        brandId,
        advocateId: target.claim.advocate_id,
        claimId: target.claim.claim_id,
        refundPk: Number(refund.refund_pk),
        refundedTotal,
        orderValue,
        full,
        exponent: brandExponent,
      });
    }
  }

  const result: RefundResult = {
    duplicate: false,
    status,
    claim_updated: target.claim !== null,
    conversion_updated: target.conversion !== null,
    claim_id: target.claim?.claim_id ?? null,
    conversion_id: target.conversion ? Number(target.conversion.conversion_id) : null,
    refund_id: input.refund_id ?? null,
    refund_amount: amountOf(amount),
    refunded_total: amountOf(refundedTotal),
    remaining: amountOf(orderValue - refundedTotal),
    reward_reversed: amountFromMinor(reversal.reversed, brandExponent),
    currency: target.currency,
  };
  // Webhooks (docs/api/webhooks.md): in this transaction; a refused or repeated refund emits nothing.
  if (target.conversion) {
    const advocate = { advocateId: Number(target.conversion.advocate_id), orderId: target.conversion.order_id, currency: brand.currency, owed: amountFromMinor(reversal.owed, brandExponent) };
    await emitWebhookEvents(trx, brandId, refundEvents(result, advocate));
  }
  return result;
}

/**
 * The claim's refunded_total, in the brand's currency (the claim's): the order's when they are the
 * same; for an order in another currency, the same share of the claim's value.
 */
function claimRefundedTotal(brand: Brand, target: Target, refundedTotal: Minor, orderValue: Minor, full: boolean): string {
  if (target.currency === brand.currency) return decimalFromMinor(refundedTotal, target.exponent);
  const exponent = currencyExponent(brand.currency);
  const claim = target.claim!;
  const value = minorFromDecimal(claim.claim_value, exponent) || minorFromDecimal(claim.raw_value, exponent);
  return decimalFromMinor(full ? value : prorate(value, refundedTotal, orderValue), exponent);
}

/** A refund is in its order's currency: one naming another is refused, not converted. */
function assertSameCurrency(input: RefundInput, target: Target): void {
  if (input.currency == null) return;
  const currency = requireCurrency(input.currency);
  if (currency !== target.currency) {
    throw new Unprocessable(`currency: the refund is in ${currency} but its order is in ${target.currency}; refund in ${target.currency}`, {}, 'currency_mismatch');
  }
}

function refundAmount(input: RefundInput, target: Target, refundedBefore: Minor, remaining: Minor): Minor {
  const exact = (value: number, field: string) => exactMinor(value, target.exponent, field, target.currency);
  if (input.refund_amount != null) return exact(input.refund_amount, 'refund_amount');
  if (input.total_refunded != null) return Math.max(0, exact(input.total_refunded, 'total_refunded') - refundedBefore);
  // The alternate form without an amount, or a full refund without one: all that remains.
  return remaining;
}

/** What can be refunded in all: the conversion's order value, else the claim's value. */
function refundableValue(target: Target): Minor {
  const minor = (value: string) => minorFromDecimal(value, target.exponent);
  if (target.conversion) return minor(target.conversion.order_value);
  return minor(target.claim!.claim_value) || minor(target.claim!.raw_value);
}

const CONVERSION_COLUMNS = ['conversion_id', 'claim_id', 'advocate_id', 'order_id', 'order_value', 'refunded_total', 'status', 'currency', 'created_at'];

/** order_id, else conversion_id, else claim_id; the conversion row is locked for the refund. */
async function findTarget(trx: Knex.Transaction, brand: Brand, input: RefundInput): Promise<Target> {
  const brandId = brand.brand_id;
  const conversions = () => trx('conversions').select(CONVERSION_COLUMNS).where({ brand_id: brandId }).forUpdate();
  let conversion: RefundedConversionRow | undefined;
  let claim: ClaimRecord | null = null;
  let lookedFor: string;
  if (input.order_id != null) {
    lookedFor = `order_id ${input.order_id}`;
    conversion = await conversions().andWhere({ order_id: input.order_id }).first();
    // An order that was no referral and spent a reward code is its advocate claim's: the refund returns what it redeemed.
    if (!conversion) claim = await findAdvocateClaimOfOrder(trx, brandId, input.order_id);
  } else if (input.conversion_id != null) {
    lookedFor = `conversion_id ${input.conversion_id}`;
    conversion = await conversions().andWhere({ conversion_id: input.conversion_id }).first();
  } else if (input.claim_id != null) {
    lookedFor = `claim_id ${input.claim_id}`;
    conversion = await conversions().andWhere({ claim_id: input.claim_id }).orderBy('conversion_id', 'desc').first();
    if (!conversion) claim = await findClaim(trx, brandId, input.claim_id, true);
  } else {
    throw new Invalid('one of order_id, conversion_id or claim_id is required');
  }
  if (conversion?.claim_id != null) claim = await findClaim(trx, brandId, Number(conversion.claim_id), true);
  if (!conversion && !claim) throw new NotFound(`no conversion or claim found for ${lookedFor}`);
  const currency = conversion?.currency ?? brand.currency;
  return { conversion: conversion ?? null, claim, currency, exponent: currencyExponent(currency) };
}

function duplicateResult(target: Target, earlier: RefundRow): RefundResult {
  const record = target.conversion ?? target.claim!;
  const orderValue = refundableValue(target);
  const refundedTotal = minorFromDecimal(record.refunded_total, target.exponent);
  const amountOf = (minor: Minor) => amountFromMinor(minor, target.exponent);
  return {
    duplicate: true,
    status: record.status,
    claim_updated: false,
    conversion_updated: false,
    claim_id: target.claim?.claim_id ?? null,
    conversion_id: target.conversion ? Number(target.conversion.conversion_id) : null,
    refund_id: earlier.refund_id,
    refund_amount: amountOf(minorFromDecimal(earlier.amount, target.exponent)),
    refunded_total: amountOf(refundedTotal),
    remaining: amountOf(orderValue - refundedTotal),
    reward_reversed: 0,
    currency: target.currency,
  };
}

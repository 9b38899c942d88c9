import type { Knex } from 'knex';
import type { Brand } from '../brands/brand';
import { type ClaimRecord, findClaim } from '../claims/claim-records';
import { claimStatusFor } from '../claims/claim-status';
import type { ConversionStatus } from '../conversions/conversion-status';
import { Invalid, NotFound } from '../errors';
import { returnRedemption } from '../ledger/reward-ledger';
import { type Cents, amountFromCents, centsFromDecimal, decimalFromCents, toCents } from '../money';
import { refundReward } from '../rewards/reward-transitions';
import { emitWebhookEvents } from '../webhooks/emit-event';
import { refundEvents } from '../webhooks/conversion-events';
import type { RefundInput, RefundResult } from './refund-input';

/** The conversions columns a refund reads (CONVERSION_COLUMNS), as the driver returns them. */
interface RefundedConversionRow {
  conversion_id: string;
  claim_id: string | null;
  advocate_id: string;
  order_value: string;
  refunded_total: string;
  status: ConversionStatus;
}

/** An earlier refund with the same refund_id. */
interface RefundRow {
  refund_id: string | null;
  amount: string;
}

interface Target {
  conversion: RefundedConversionRow | null;
  claim: ClaimRecord | null;
}

/**
 * Records a full or partial refund against a conversion (and its claim), reversing the
 * advocate's reward pro rata in the ledger (held or approved; a full refund voids a held reward). A repeated refund_id changes nothing.
 */
export async function recordRefund(trx: Knex.Transaction, brand: Brand, input: RefundInput): Promise<RefundResult> {
  const brandId = brand.brand_id;
  const target = await findTarget(trx, brandId, input);
  // Checked after the row lock, so two deliveries of one refund_id cannot both pass.
  if (input.refund_id) {
    const earlier: RefundRow | undefined = await trx('refunds').select('refund_id', 'amount').where({ brand_id: brandId, refund_id: input.refund_id }).first();
    if (earlier) return duplicateResult(target, earlier);
  }

  const record = target.conversion ?? target.claim!;
  const orderValue = refundableValue(target);
  const refundedBefore = centsFromDecimal(record.refunded_total);
  const remaining = orderValue - refundedBefore;
  const amount = refundAmount(input, refundedBefore, remaining);
  if (amount > remaining) {
    throw new Invalid(
      `refund_amount ${amountFromCents(amount)} exceeds the remaining refundable amount ${amountFromCents(remaining)}`,
    );
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
      amount: decimalFromCents(amount),
      is_full_refund: full,
      status_after: status,
      reason: input.refund_reason ?? null,
      referral_code: input.referral_code ?? null,
      source: input.source ?? null,
      metadata: JSON.stringify(input.metadata),
    })
    .returning('refund_pk')) as [{ refund_pk: string }];

  let rewardReversed: Cents = 0;
  if (target.conversion) {
    await trx('conversions')
      .where({ brand_id: brandId, conversion_id: target.conversion.conversion_id })
      .update({ status, refunded_total: decimalFromCents(refundedTotal), updated_at: trx.fn.now() });
    rewardReversed = await refundReward(trx, brandId, {
      conversionId: Number(target.conversion.conversion_id),
      refundPk: Number(refund.refund_pk),
      refundedTotal,
      orderValue,
      full,
    });
  }
  if (target.claim) {
    await trx('claims')
      .where({ brand_id: brandId, claim_id: target.claim.claim_id })
      .update({ status: claimStatusFor(status), refunded_total: decimalFromCents(refundedTotal), updated_at: trx.fn.now() });
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
    refund_amount: amountFromCents(amount),
    refunded_total: amountFromCents(refundedTotal),
    remaining: amountFromCents(orderValue - refundedTotal),
    reward_reversed: amountFromCents(rewardReversed),
  };
  // Webhooks (docs/webhooks.md): in this transaction; a refused or repeated refund emits nothing.
  if (target.conversion) await emitWebhookEvents(trx, brandId, refundEvents(result, Number(target.conversion.advocate_id)));
  return result;
}

function refundAmount(input: RefundInput, refundedBefore: Cents, remaining: Cents): Cents {
  if (input.refund_amount != null) return toCents(input.refund_amount);
  if (input.total_refunded != null) return Math.max(0, toCents(input.total_refunded) - refundedBefore);
  // The alternate form without an amount, or a full refund without one: all that remains.
  return remaining;
}

/** What can be refunded in all: the conversion's order value, else the claim's value. */
function refundableValue(target: Target): Cents {
  if (target.conversion) return centsFromDecimal(target.conversion.order_value);
  return centsFromDecimal(target.claim!.claim_value) || centsFromDecimal(target.claim!.raw_value);
}

const CONVERSION_COLUMNS = ['conversion_id', 'claim_id', 'advocate_id', 'order_value', 'refunded_total', 'status'];

/** order_id, else conversion_id, else claim_id; the conversion row is locked for the refund. */
async function findTarget(trx: Knex.Transaction, brandId: string, input: RefundInput): Promise<Target> {
  const conversions = () => trx('conversions').select(CONVERSION_COLUMNS).where({ brand_id: brandId }).forUpdate();
  let conversion: RefundedConversionRow | undefined;
  let claim: ClaimRecord | null = null;
  let lookedFor: string;
  if (input.order_id != null) {
    lookedFor = `order_id ${input.order_id}`;
    conversion = await conversions().andWhere({ order_id: input.order_id }).first();
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
  return { conversion: conversion ?? null, claim };
}

function duplicateResult(target: Target, earlier: RefundRow): RefundResult {
  const record = target.conversion ?? target.claim!;
  const orderValue = refundableValue(target);
  const refundedTotal = centsFromDecimal(record.refunded_total);
  return {
    duplicate: true,
    status: record.status,
    claim_updated: false,
    conversion_updated: false,
    claim_id: target.claim?.claim_id ?? null,
    conversion_id: target.conversion ? Number(target.conversion.conversion_id) : null,
    refund_id: earlier.refund_id,
    refund_amount: amountFromCents(centsFromDecimal(earlier.amount)),
    refunded_total: amountFromCents(refundedTotal),
    remaining: amountFromCents(orderValue - refundedTotal),
    reward_reversed: 0,
  };
}

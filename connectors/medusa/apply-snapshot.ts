import type { Knex } from 'knex';
import type { Brand } from '../../core/brands/brand';
import { recordPaidOrder } from '../../core/conversions/record-paid-order';
import { lockKey } from '../../core/db/advisory-lock';
import { type Minor, toMinor } from '../../core/money';
import { recordRefund } from '../../core/refunds/record-refund';
import type { RefundInput, RefundResult } from '../../core/refunds/refund-input';
import type { MedusaOrderPlan } from './map-snapshot';

export interface MedusaDeliveryOutcome {
  event_id: string;
  order_id: string;
  /** This event id was delivered before: nothing changed, the first outcome is returned. */
  duplicate: boolean;
  /** A referral conversion exists for the order (false: not paid yet, or no referral). */
  attributed: boolean;
  conversion_id: number | null;
  claim_id: number | null;
  status: RefundResult['status'] | null;
  /** Refund ids recorded by this delivery (Medusa refund ids, or `cancel:<order id>`). */
  refunds_recorded: string[];
}

type Applied = Omit<MedusaDeliveryOutcome, 'event_id' | 'order_id' | 'duplicate'>;

/**
 * Applies one snapshot in the caller's transaction. Snapshots of one order are applied one at a
 * time, and an event id is applied once; whatever order they arrive in, the result is the same
 * because each snapshot carries the whole state and every call it makes is idempotent.
 */
export async function applyMedusaSnapshot(
  trx: Knex.Transaction,
  brand: Brand,
  event: { event_id: string; event_name: string },
  plan: MedusaOrderPlan,
): Promise<MedusaDeliveryOutcome> {
  const brandId = brand.brand_id;
  await lockKey(trx, `medusa:${brandId}:${plan.order_id}`);
  const earlier = await trx('medusa_deliveries').select('outcome').where({ brand_id: brandId, event_id: event.event_id }).first();
  if (earlier) return { ...(earlier.outcome as MedusaDeliveryOutcome), duplicate: true };

  const outcome: MedusaDeliveryOutcome = { event_id: event.event_id, order_id: plan.order_id, duplicate: false, ...(await applyPlan(trx, brand, plan)) };
  await trx('medusa_deliveries').insert({
    brand_id: brandId,
    event_id: event.event_id,
    event_name: event.event_name,
    order_id: plan.order_id,
    outcome: JSON.stringify(outcome),
  });
  return outcome;
}

async function applyPlan(trx: Knex.Transaction, brand: Brand, plan: MedusaOrderPlan): Promise<Applied> {
  const unattributed: Applied = { attributed: false, conversion_id: null, claim_id: null, status: null, refunds_recorded: [] };
  if (!plan.paid_order) return unattributed;
  const { result, claim_id } = await recordPaidOrder(trx, brand, plan.paid_order);
  if (!result.attributed) return unattributed;

  let status: RefundResult['status'] = result.conversion.status;
  const minor = (amount: number) => toMinor(amount, plan.exponent);
  let remaining: Minor = minor(result.conversion.order_value) - minor(result.conversion.refunded_total);
  const recorded: string[] = [];
  for (const refund of plan.cancellation ? [...plan.refunds, plan.cancellation] : plan.refunds) {
    // Fully refunded already (a cancellation overtook a refund, say): there is nothing left to take back.
    if (status === 'refunded') break;
    const outcome = await recordRefund(trx, brand, fitToRemaining(refund, remaining, plan.exponent));
    status = outcome.status;
    remaining = minor(outcome.remaining);
    if (!outcome.duplicate && outcome.refund_id) recorded.push(outcome.refund_id);
  }
  return { attributed: true, conversion_id: result.conversion.conversion_id, claim_id, status, refunds_recorded: recorded };
}

/** A refund reaching what remains of the recorded order value refunds the rest, in full. */
function fitToRemaining(refund: RefundInput, remaining: Minor, exponent: number): RefundInput {
  if (refund.refund_amount == null || toMinor(refund.refund_amount, exponent) < remaining) return refund;
  return { ...refund, refund_amount: null, is_full_refund: true };
}

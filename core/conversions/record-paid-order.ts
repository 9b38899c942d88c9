import type { Knex } from 'knex';
import { askEnrollment } from '../advocates/auto-enroll';
import { normalizeEmail } from '../advocates/normalize';
import type { Brand } from '../brands/brand';
import { assertBrandActive } from '../brands/brand-status';
import { planAllows } from '../brands/plan-features';
import type { ClaimRecord } from '../claims/claim-records';
import { claimForRedemption } from '../claims/redemption-claim';
import type { ReviewSummary } from '../fraud/reviews';
import { screenConversion } from '../fraud/screen-conversion';
import type { NewRewardOptions } from '../rewards/reward-records';
import { emitWebhookEvents } from '../webhooks/emit-event';
import { conversionCreatedEvents } from '../webhooks/conversion-events';
import { type OrderCodes, type Referrer, findReferrer } from './attribute-conversion';
import type { ConversionInput } from './conversion-input';
import { conversionMoney } from './conversion-money';
import { type Attribution, type ExistingConversion, completeIfPending, findExistingConversion } from './conversion-records';
import { type InsertedConversion, type NewConversion, insertConversions, newConversionRewardStatus } from './insert-conversions';
import { type ConversionView, toConversionView } from './conversion-view';
import { PaidOrderBatch } from './paid-order-batch';

export interface PaidOrderInput extends OrderCodes {
  conversion: ConversionInput;
  /** Where a claim for a redeemed referral discount code comes from (`shopify`, `medusa`); none: no claim. */
  claim_source?: string | null;
  /** Create the reward `in_review` (a fraud review approves or voids it) instead of held or approved. */
  reward_in_review?: boolean;
}

export type ConversionResult =
  | { attributed: false }
  | {
      attributed: true;
      duplicate: boolean;
      conversion: ConversionView;
      /** The fraud review holding its reward (core/fraud), or null when the rules let it through. */
      review: ReviewSummary | null;
    };

export interface PaidOrderResult {
  result: ConversionResult;
  /** The claim the conversion is linked to. */
  claim_id: number | null;
}

/** A paid order with the brand it belongs to: one item of a batch. */
export interface PaidOrder {
  brand: Brand;
  order: PaidOrderInput;
}

/** A paid order alone (Medusa, tests): a batch of one, reading its own look-ups. */
export async function recordPaidOrder(trx: Knex.Transaction, brand: Brand, order: PaidOrderInput): Promise<PaidOrderResult> {
  const [result] = await recordPaidOrders(trx, [{ brand, order }]);
  return result!;
}

/** Paid orders whose look-ups nobody read yet: read together (PaidOrderBatch.read), then written as one batch. */
export async function recordPaidOrders(trx: Knex.Transaction, items: PaidOrder[]): Promise<PaidOrderResult[]> {
  return writePaidOrders(trx, items, await PaidOrderBatch.read(trx, items));
}

/** One order of a batch alone: the batcher's way of writing item by item when the batch's statement failed. */
export async function writePaidOrder(trx: Knex.Transaction, item: PaidOrder, batch: PaidOrderBatch): Promise<PaidOrderResult> {
  const [result] = await writePaidOrders(trx, [item], batch);
  return result!;
}

/**
 * The one way paid orders are recorded, whoever reports them (POST /track/conversion, Shopify,
 * Medusa), as a batch whose look-ups were made together (PaidOrderBatch). For each order, in
 * order: the brand must be active; a repeat returns the stored conversion (`duplicate`, even when
 * both requests race: the unique key decides); otherwise its referrer is resolved once, a redeemed
 * referral discount code becomes a claim where the plan has claims, the brand's fraud rules screen
 * it (a flagged one is held for review: written, not credited), and the conversion, its reward
 * credit (or review) and its claim's status are written together. The batch's new conversions go
 * in one statement (docs/development/decisions.md, *One statement per batch*): an order whose decision reads
 * the database (a repeat, a redemption's claim, its own fraud signals) first writes those held
 * back, so each order sees the same database as when written one after the other.
 */
export async function writePaidOrders(trx: Knex.Transaction, items: PaidOrder[], batch: PaidOrderBatch): Promise<PaidOrderResult[]> {
  const results: PaidOrderResult[] = [];
  let held: Array<{ index: number; conversion: NewConversion }> = [];
  batch.holdWritesUntilRead(async () => {
    const writing = held;
    held = [];
    const inserted = await insertConversions(trx, writing.map(({ conversion }) => conversion));
    for (const [position, { index, conversion }] of writing.entries()) results[index] = await answerNew(trx, batch, conversion, inserted[position]);
  });
  for (const [index, item] of items.entries()) {
    const decision = await decidePaidOrder(trx, item, batch);
    if (isNew(decision)) held.push({ index, conversion: decision });
    else results[index] = decision;
  }
  await batch.settle();
  return results;
}

const isNew = (decision: PaidOrderResult | NewConversion): decision is NewConversion => 'attribution' in decision;

/** What a paid order comes to before anything is written: an answer (a repeat, not a referral), or the conversion to write. */
async function decidePaidOrder(trx: Knex.Transaction, { brand, order }: PaidOrder, batch: PaidOrderBatch): Promise<PaidOrderResult | NewConversion> {
  assertBrandActive(brand);
  const input = order.conversion;
  const rewardOptions = { inReview: order.reward_in_review === true };
  const existing = await batch.existingConversion(trx, brand.brand_id, input);
  if (existing) return answerRepeat(trx, batch, brand, existing, input, rewardOptions);
  // Checked before anything is written: a bad amount or currency is the caller's 4xx (a repeat is answered as before).
  const money = conversionMoney(brand, input);
  // Every paying customer an advocate, where the brand asks for it (a row in this transaction; nothing for other brands).
  await askEnrollment(trx, brand, input);

  const referrer = await findReferrer(trx, batch, brand, input, order);
  if (!referrer) return { result: { attributed: false }, claim_id: null };
  const attribution = await attributionOf(trx, batch, brand, order, referrer);

  const reasons = screenConversion(brand, input, await batch.signalsFor(trx, brand, input, attribution.advocate_id));
  batch.decided(brand.brand_id, input, attribution.advocate_id, attribution.claim);
  return { brand, input, attribution, money, rewardOptions, reasons };
}

/** The answer to a new conversion once its statement ran: created, or (a lost race) the winner's row as a repeat. */
async function answerNew(trx: Knex.Transaction, batch: PaidOrderBatch, decided: NewConversion, inserted: InsertedConversion | undefined): Promise<PaidOrderResult> {
  const { brand, input, attribution, rewardOptions, reasons } = decided;
  if (!inserted) {
    // Lost a race on (brand_id, order_id): the other request's row is committed now.
    const winner = await findExistingConversion(trx, brand.brand_id, input);
    if (!winner) throw new Error(`conversion for order ${input.order_id} vanished after a conflict`);
    return answerRepeat(trx, batch, brand, winner, input, rewardOptions);
  }
  const review: ReviewSummary | null = inserted.review_id === null ? null : { review_id: Number(inserted.review_id), status: 'open', reasons };
  const conversion = toConversionView(inserted);
  // Webhooks (docs/api/webhooks.md): in the batch's transaction; a duplicate returned above emits nothing.
  await emitWebhookEvents(trx, brand.brand_id, conversionCreatedEvents({ ...conversion, review }, newConversionRewardStatus(decided)));
  batch.wrote(brand.brand_id, input, { ...inserted, review });
  return { result: { attributed: true, duplicate: false, conversion, review }, claim_id: attribution.claim?.claim_id ?? null };
}

/** A repeat (a pending one reported completed is upgraded), answered as the batch now holds it. */
async function answerRepeat(
  trx: Knex.Transaction,
  batch: PaidOrderBatch,
  brand: Brand,
  existing: ExistingConversion,
  input: ConversionInput,
  rewardOptions: NewRewardOptions,
): Promise<PaidOrderResult> {
  await batch.settle();
  const conversion = await completeIfPending(trx, brand, existing, input, rewardOptions);
  batch.answeredRepeat(brand.brand_id, existing, conversion.status);
  return duplicateOf(conversion, existing.review);
}

/** A repeat is answered as stored, with its review as it stands now; the rules are not run again. */
function duplicateOf(conversion: ConversionView, review: ReviewSummary | null): PaidOrderResult {
  return { result: { attributed: true, duplicate: true, conversion, review }, claim_id: conversion.claim_id };
}

/** The claim a code-referred order links to: its redemption's claim when one is due, else the customer's pending claim. */
async function attributionOf(trx: Knex.Transaction, batch: PaidOrderBatch, brand: Brand, order: PaidOrderInput, referrer: Referrer): Promise<Attribution> {
  if ('claim' in referrer) {
    const { claim } = referrer;
    return { advocate_id: claim.advocate_id, advocate_email_normalized: null, referral_code: claim.referral_code, claim, via: referrer.via };
  }
  const { owner } = referrer;
  const email = order.conversion.email;
  // A claim is about a customer's email: an email-less platform order is a conversion without one.
  if (email === null) return { advocate_id: owner.advocate_id, advocate_email_normalized: owner.advocate_email_normalized, referral_code: owner.code, claim: null, via: referrer.via };
  const claimSource = referrer.redeemed && planAllows(brand.plan, 'claims') ? order.claim_source : null;
  if (claimSource) await batch.settle();
  const claim: ClaimRecord | null = claimSource
    ? await claimForRedemption(trx, brand, owner, { ...order.conversion, email }, claimSource)
    : batch.pendingClaim(brand.brand_id, normalizeEmail(email), owner.advocate_id);
  return { advocate_id: owner.advocate_id, advocate_email_normalized: owner.advocate_email_normalized, referral_code: owner.code, claim, via: referrer.via };
}

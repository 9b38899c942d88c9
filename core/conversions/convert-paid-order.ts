import type { Knex } from 'knex';
import { askEnrollment } from '../advocates/auto-enroll';
import { assertBrandActive } from '../brands/brand-status';
import { spendRewardCodes } from '../claims/reward-code-claim';
import { screenConversion } from '../fraud/screen-conversion';
import { newRewardStatus } from '../rewards/reward-records';
import { conversionCreatedEvents } from '../webhooks/conversion-events';
import { emitWebhookEvents } from '../webhooks/emit-event';
import { answerRepeat } from './answer-repeat';
import { findReferrer } from './attribute-conversion';
import { type ConversionMoney, conversionMoney } from './conversion-money';
import { findExistingConversion } from './conversion-records';
import { toConversionView } from './conversion-view';
import { linkClaim } from './link-claim';
import type { PaidOrder, PaidOrderResult, PaidOrderStore } from './paid-order';

const NOT_A_REFERRAL: PaidOrderResult = { result: { attributed: false }, claim_id: null };

/**
 * The paid-order use case: one order, whoever reports it (POST /track/conversion, Shopify,
 * Medusa), from the order to its answer, step by step. The store answers as if the order were
 * recorded alone; batching is done around this function (record-paid-order.ts), not in it.
 */
export async function convertPaidOrder(trx: Knex.Transaction, { brand, order }: PaidOrder, store: PaidOrderStore): Promise<PaidOrderResult> {
  assertBrandActive(brand);
  const input = order.conversion;
  const rewardOptions = { inReview: order.reward_in_review === true };

  // 1. A repeat is answered as stored (even when two requests race: the unique key decides).
  const existing = await store.existingConversion(brand.brand_id, input);
  if (existing) return answerRepeat(store, brand, existing, input, rewardOptions);

  // 2. Money, with both currencies resolved once; a bad amount or currency is the caller's 4xx, before anything is written.
  const money = conversionMoney(brand, input);
  // Every paying customer an advocate, where the brand asks for it (a row in this transaction; nothing for other brands).
  await askEnrollment(trx, brand, input);

  const answer = await recordReferral(trx, { brand, order }, store, money, rewardOptions);

  // 9. Reward codes: one the order used is its advocate's claim, referral or not; after the referral
  // is decided, so that claim never makes the order a referral of theirs (nothing for most orders).
  await spendRewardCodes(trx, brand, input, money, order.claim_source ?? 'api');
  return answer;
}

/** Steps 3 to 8: an order that is a referral becomes a conversion with its claim, review, reward and events. */
async function recordReferral(
  trx: Knex.Transaction,
  { brand, order }: PaidOrder,
  store: PaidOrderStore,
  money: ConversionMoney,
  rewardOptions: { inReview: boolean },
): Promise<PaidOrderResult> {
  const input = order.conversion;

  // 3. Referrer: a claim or a code's owner; none: not a referral.
  const referrer = await findReferrer(trx, store, brand, input, order);
  if (!referrer) return NOT_A_REFERRAL;

  // 4. Claim: the redemption's claim, or the customer's pending one.
  const attribution = await linkClaim(store, brand, order, referrer, money);

  // 5. Fraud: the brand's rules; any reason holds the reward for review.
  const reasons = screenConversion(brand, input, await store.fraudSignals(brand, input, attribution.advocate_id));

  // 6. Reward: the status it starts in (held, in review or approved).
  const rewardStatus = newRewardStatus(brand, { inReview: rewardOptions.inReview || reasons.length > 0 });

  // 7. Write: the conversion, its lines, reward, ledger entry, email, review and claim, in one statement.
  const written = await store.insertConversion({ brand, input, attribution, money, rewardStatus, reasons });
  if (!written) {
    // Lost a race on (brand_id, order_id): the other request's row is committed now.
    const winner = await findExistingConversion(trx, brand.brand_id, input);
    if (!winner) throw new Error(`conversion for order ${input.order_id} vanished after a conflict`);
    return answerRepeat(store, brand, winner, input, rewardOptions);
  }

  // 8. Events (docs/api/webhooks.md): in this transaction, an outbox; a repeat emits none.
  const conversion = toConversionView(written);
  await emitWebhookEvents(trx, brand.brand_id, conversionCreatedEvents({ ...conversion, review: written.review }, rewardStatus));
  return { result: { attributed: true, duplicate: false, conversion, review: written.review }, claim_id: attribution.claim?.claim_id ?? null };
}

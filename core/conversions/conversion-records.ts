import { issueSpendable } from '../rewards/issue-rewards';
import type { Knex } from 'knex';
import type { Brand } from '../brands/brand';
import type { ClaimRecord } from '../claims/claim-records';
import { lockKey } from '../db/advisory-lock';
import { lookUpByKeys } from '../db/look-up-by-keys';
import { statementOnce } from '../db/prepared-statement';
import type { Executor } from '../db/transaction';
import { type ReviewSummary, reviewColumn } from '../fraud/reviews';
import { creditNewRewards } from '../ledger/reward-ledger';
import { type NewRewardOptions, insertNewRewards, newRewardStatus } from '../rewards/reward-records';
import { queueRewardMail } from '../mail/enqueue-mail';
import { emitWebhookEvents } from '../webhooks/emit-event';
import { rewardCredited } from '../webhooks/conversion-events';
import type { ConversionInput } from './conversion-input';
import { CONVERSION_VIEW_COLUMNS, type ConversionRow, type ConversionView, toConversionView } from './conversion-view';

/** Reads and writes of the conversions table: one order is one row, whoever reports it. */

/** What a new conversion records about who referred it. */
export interface Attribution {
  advocate_id: number;
  /** null when a claim decided it: no self-referral check (the claim's own rules applied). */
  advocate_email_normalized: string | null;
  referral_code: string | null;
  claim: ClaimRecord | null;
  via: 'claim_id' | 'referral_code' | 'coupon' | 'pending_claim' | 'visit';
}

/** A recorded conversion with its fraud review (null: not held). */
export type ExistingConversion = ConversionRow & { review: ReviewSummary | null };

/** An order's key among the existing conversions of a batch. */
export function brandOrderKey(brandId: string, orderId: string): string {
  return `${brandId}:${orderId}`;
}

const existingByOrder = statementOnce(1, (db, [keys]) =>
  lookUpByKeys(
    db,
    'brand_id uuid, order_id text',
    keys!,
    db('conversions')
      .select([...CONVERSION_VIEW_COLUMNS, 'brand_id', reviewColumn(db)])
      .whereRaw('conversions.brand_id = k.brand_id AND conversions.order_id = k.order_id')
      .limit(1),
  ),
);

/**
 * The conversions already recorded for several orders (of any brands) by order_id, in one query,
 * by brandOrderKey (one index look-up per order). No row lock: a repeat only reads (so it writes no WAL); completeIfPending
 * upgrades atomically.
 */
export async function findExistingConversions(
  trx: Executor,
  orders: Array<{ brandId: string; orderId: string }>,
): Promise<Map<string, ExistingConversion>> {
  if (orders.length === 0) return new Map();
  const keys = [...new Map(orders.map(({ brandId, orderId }) => [brandOrderKey(brandId, orderId), { brand_id: brandId, order_id: orderId }])).values()];
  const { rows } = await existingByOrder(trx, [JSON.stringify(keys)]);
  return new Map((rows as Array<ExistingConversion & { brand_id: string }>).map(({ brand_id, ...row }) => [brandOrderKey(brand_id, row.order_id!), row]));
}

/** The conversion already recorded for this order: by order_id, else by content hash within 24 h. */
export async function findExistingConversion(trx: Knex.Transaction, brandId: string, input: ConversionInput): Promise<ExistingConversion | undefined> {
  if (input.order_id !== null) {
    const found = await findExistingConversions(trx, [{ brandId, orderId: input.order_id }]);
    return found.get(brandOrderKey(brandId, input.order_id));
  }
  if (!input.content_hash) return undefined;
  // No order_id: the same content inside 24 h is the same order. Serialise on the hash.
  await lockKey(trx, `${brandId}:${input.content_hash}`);
  return trx('conversions')
    .select([...CONVERSION_VIEW_COLUMNS, reviewColumn(trx)])
    .where({ brand_id: brandId, content_hash: input.content_hash })
    .andWhere('created_at', '>=', trx.raw(`now() - interval '24 hours'`))
    .orderBy('created_at', 'desc')
    .forUpdate()
    .first();
}

/** A repeat writes only when it reports a pending conversion completed (completeIfPending upgrades it). */
export function upgradesOnRepeat(row: Pick<ConversionRow, 'status'>, input: Pick<ConversionInput, 'status'>): boolean {
  return row.status === 'pending' && input.status === 'completed';
}

/** A `pending` conversion reported again as `completed` is upgraded and its reward created (credited or held), once. */
export async function completeIfPending(
  trx: Knex.Transaction,
  brand: Brand,
  row: ConversionRow & { review?: ReviewSummary | null },
  input: ConversionInput,
  rewardOptions: NewRewardOptions = {},
): Promise<ConversionView> {
  if (!upgradesOnRepeat(row, input)) return toConversionView(row);
  const [updated]: ConversionRow[] = await trx('conversions')
    .where({ brand_id: brand.brand_id, conversion_id: row.conversion_id, status: 'pending' })
    .update({ status: 'completed', updated_at: trx.fn.now() })
    .returning(CONVERSION_VIEW_COLUMNS);
  if (!updated) {
    // A concurrent repeat upgraded it first (and credited it): report the row as it is now.
    const current: ConversionRow = await trx('conversions').select(CONVERSION_VIEW_COLUMNS).where({ brand_id: brand.brand_id, conversion_id: row.conversion_id }).first();
    return toConversionView(current);
  }
  // A review still open holds the reward in review; a rejected one means it is never earned.
  const review = row.review ?? null;
  if (review?.status === 'rejected') return toConversionView(updated);
  const options = { ...rewardOptions, inReview: rewardOptions.inReview === true || review?.status === 'open' };
  const rewardStatus = newRewardStatus(brand, options);
  await trx.raw(
    `WITH conversion AS (
       SELECT ?::uuid AS brand_id, ?::bigint AS conversion_id, ?::bigint AS advocate_id, 'completed' AS status,
         ?::numeric AS referrer_reward_paid, ?::text AS reward_status, ?::int AS hold_days
     ),
     reward AS (?),
     credit AS (?)
     ?`,
    [
      brand.brand_id, updated.conversion_id, updated.advocate_id, updated.referrer_reward_paid, rewardStatus, brand.reward_hold_days,
      insertNewRewards(trx, 'conversion'), creditNewRewards(trx, 'reward'), queueRewardMail(trx, 'reward'),
    ],
  );
  if (rewardStatus === 'approved') await issueSpendable(trx, brand, [Number(updated.advocate_id)]);
  const conversion = toConversionView(updated);
  // Webhooks (docs/api/webhooks.md): the upgrade earns the reward now (held, in review or approved); its email was written with it.
  if (conversion.referrer_reward_paid > 0) await emitWebhookEvents(trx, brand.brand_id, [rewardCredited(conversion, rewardStatus)]);
  return conversion;
}

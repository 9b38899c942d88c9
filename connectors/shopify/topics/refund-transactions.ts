import type { Knex } from 'knex';
import type { Brand } from '../../../core/brands/brand';
import { lockKey } from '../../../core/db/advisory-lock';
import { NotFound } from '../../../core/errors';
import { currencyExponent } from '../../../core/currency';
import { type Minor, amountFromMinor, decimalFromMinor, minorFromDecimal, toMinor } from '../../../core/money';
import { recordRefund } from '../../../core/refunds/record-refund';
import type { RefundInput } from '../../../core/refunds/refund-input';
import type { RefundTransaction } from '../map-refund';
import { moneyExponent } from '../shop-currency';
import { type HandlerOutcome, RetryLater } from './topic-handler';

/**
 * A Shopify refund's money, counted once: each of its `refund` transactions is kept
 * (shopify_refund_transactions) and counted by the core refund that took it into account. The
 * first count of a refund is keyed by Shopify's refund id; a transaction that succeeds later
 * (pending at refunds/create) is counted under `<refund id>:<transaction id>`. Every path that
 * counts (refunds/create, order_transactions/create, reconcile) holds the order's lock first.
 */

interface TransactionRow {
  transaction_id: string;
  refund_id: string | null;
  status: RefundTransaction['status'];
  shop_amount: string | null;
  presentment_amount: string | null;
  presentment_currency: string | null;
  counted_by: string | null;
}

export function lockOrderRefunds(trx: Knex.Transaction, brandId: string, orderId: string): Promise<void> {
  return lockKey(trx, `shopify-refunds:${brandId}:${orderId}`);
}

/**
 * Keeps what a payload says about transactions: a final status (success, failure, error) is never
 * set back to pending, and an amount or refund id already known is kept when the payload lacks one.
 */
export async function keepTransactions(
  trx: Knex.Transaction,
  brandId: string,
  orderId: string,
  refundId: string | null,
  transactions: RefundTransaction[],
): Promise<void> {
  if (transactions.length === 0) return;
  const rows = transactions.map((transaction) => ({
    brand_id: brandId,
    transaction_id: transaction.transaction_id,
    order_id: orderId,
    refund_id: refundId,
    status: transaction.status,
    shop_amount: transaction.shop_minor === null ? null : decimalFromMinor(transaction.shop_minor, transaction.shop_exponent),
    presentment_amount: decimalFromMinor(transaction.presentment_minor, transaction.presentment_exponent),
    presentment_currency: transaction.presentment_currency,
  }));
  await trx('shopify_refund_transactions')
    .insert(rows)
    .onConflict(['brand_id', 'transaction_id'])
    .merge({
      refund_id: trx.raw('COALESCE(shopify_refund_transactions.refund_id, excluded.refund_id)'),
      status: trx.raw(`CASE WHEN shopify_refund_transactions.status = 'pending' THEN excluded.status ELSE shopify_refund_transactions.status END`),
      shop_amount: trx.raw('COALESCE(excluded.shop_amount, shopify_refund_transactions.shop_amount)'),
      updated_at: trx.fn.now(),
    });
}

export function findTransaction(trx: Knex.Transaction, brandId: string, transactionId: string): Promise<TransactionRow | undefined> {
  return trx('shopify_refund_transactions').where({ brand_id: brandId, transaction_id: transactionId }).first();
}

export interface RefundToCount {
  order_id: string;
  refund_id: string;
  shop: string;
  reason?: string | null;
}

/**
 * Records, through the core's refund, the refund's successful transactions not counted yet, and
 * marks them counted. Nothing new: `duplicate_refund` when some were counted before, else what is
 * still awaited (pending transactions) or that no money moved.
 */
export async function countRefund(trx: Knex.Transaction, brand: Brand, refund: RefundToCount): Promise<HandlerOutcome> {
  const rows: TransactionRow[] = await trx('shopify_refund_transactions')
    .where({ brand_id: brand.brand_id, refund_id: refund.refund_id })
    .orderBy('transaction_id');
  const due = rows.filter((row) => row.status === 'success' && row.counted_by === null && row.shop_amount !== null);
  const summary = { order_id: refund.order_id, refund_id: refund.refund_id };
  if (due.length === 0) {
    if (rows.some((row) => row.status === 'pending')) return { outcome: 'waiting: a refund transaction is pending', result: summary };
    if (rows.some((row) => row.counted_by !== null)) return { outcome: 'duplicate_refund', result: summary };
    return { outcome: 'ignored: no money refunded', result: summary };
  }
  const key = rows.some((row) => row.counted_by !== null) ? `${refund.refund_id}:${due[0]!.transaction_id}` : refund.refund_id;
  // Shop money is the brand's currency (the install and `shopify connect` make it so).
  const exponent = currencyExponent(brand.currency);
  const minor = due.reduce((sum, row) => sum + minorFromDecimal(row.shop_amount, exponent), 0);
  const outcome = await recordShopifyRefund(trx, brand, {
    order_id: refund.order_id,
    refund_id: key,
    refund_amount: amountFromMinor(minor, exponent),
    refund_reason: refund.reason ?? null,
    source: 'shopify',
    metadata: {
      shop: refund.shop,
      transaction_ids: due.map((row) => row.transaction_id),
      ...presentmentOf(due),
    },
  });
  await trx('shopify_refund_transactions')
    .where({ brand_id: brand.brand_id })
    .whereIn('transaction_id', due.map((row) => row.transaction_id))
    .update({ counted_by: key, updated_at: trx.fn.now() });
  return outcome;
}

/** The buyer's currency and amount of what was counted, for display. */
function presentmentOf(rows: TransactionRow[]): Record<string, unknown> {
  const currencies = new Set(rows.map((row) => row.presentment_currency));
  if (currencies.size !== 1 || rows[0]!.presentment_currency === null) return {};
  const exponent = moneyExponent(rows[0]!.presentment_currency);
  const minor = rows.reduce((sum, row) => sum + minorFromDecimal(row.presentment_amount, exponent), 0);
  return { presentment_currency: rows[0]!.presentment_currency, presentment_amount: amountFromMinor(minor, exponent) };
}

/**
 * The core's refund for money Shopify returned, never more than what remains refundable (a
 * cancellation may have reversed the rest already; gift cards are not in the conversion's value).
 * No conversion: closed when the order was seen and was not a referral, else retried until it is.
 */
export async function recordShopifyRefund(trx: Knex.Transaction, brand: Brand, input: Omit<RefundInput, 'metadata'> & { metadata: Record<string, unknown> }): Promise<HandlerOutcome> {
  const orderId = input.order_id!;
  try {
    const left = await remainingRefundable(trx, brand.brand_id, orderId);
    if (left?.remaining === 0) return { outcome: 'ignored: nothing left to refund (cancelled or refunded already)', result: { order_id: orderId, refund_id: input.refund_id } };
    const amount = input.refund_amount == null || left === null ? input.refund_amount : amountFromMinor(Math.min(toMinor(input.refund_amount, left.exponent), left.remaining), left.exponent);
    const result = await recordRefund(trx, brand, { ...input, refund_amount: amount });
    return {
      outcome: result.duplicate ? 'duplicate_refund' : 'refund_recorded',
      result: {
        order_id: orderId,
        refund_id: result.refund_id,
        conversion_id: result.conversion_id,
        claim_id: result.claim_id,
        refund_amount: result.refund_amount,
        refunded_total: result.refunded_total,
        status: result.status,
      },
    };
  } catch (error) {
    if (!(error instanceof NotFound)) throw error;
    const orderSeen = await trx('shopify_inbox')
      .where({ brand_id: brand.brand_id, order_id: orderId, topic: 'orders/paid', status: 'done' })
      .first('webhook_id');
    const noConversion = `ignored: order ${orderId} has no conversion`;
    if (orderSeen) return { outcome: noConversion };
    // Not seen yet: deliveries can arrive out of order, so wait for orders/paid.
    throw new RetryLater(`order ${orderId} has not been recorded (yet)`, noConversion);
  }
}

/** What is left to refund on the order's conversion, in its currency's minor units; null: no conversion (the core says so). */
async function remainingRefundable(trx: Knex.Transaction, brandId: string, orderId: string): Promise<{ remaining: Minor; exponent: number } | null> {
  const row = await trx('conversions').where({ brand_id: brandId, order_id: orderId }).first('order_value', 'refunded_total', 'currency');
  if (!row) return null;
  const exponent = moneyExponent(row.currency);
  return { remaining: minorFromDecimal(row.order_value, exponent) - minorFromDecimal(row.refunded_total, exponent), exponent };
}

import { Invalid } from '../../core/errors';
import { type Cents, amountFromCents, prorate, roundMinor } from '../../core/money';
import { type RefundInput, refundInputSchema } from '../../core/refunds/refund-input';
import { centsOf, parsePayload, shopCents } from './map-paid-order';
import { idString } from './parse-lossless-json';
import { shopExponent } from './shop-currency';
import { type MoneySet, type ShopifyRefund, type ShopifyTransaction, refundSchema } from './shopify-payloads';

/** One `refund` transaction of a refund, its amount in the shop's currency. */
export interface RefundTransaction {
  transaction_id: string;
  status: 'pending' | 'success' | 'failure' | 'error';
  /** null: not known from this payload (order_transactions/create names neither the refund nor its rate). */
  shop_cents: Cents | null;
  presentment_cents: Cents;
  presentment_currency: string | null;
}

export interface MappedRefund {
  refund: RefundInput;
  /** Money actually returned, in shop money: the successful `refund` transactions (0 for a restock only). */
  amount_cents: number;
  /** Every `refund` transaction, whatever its status: a pending one is counted when it succeeds. */
  transactions: RefundTransaction[];
}

const TRANSACTION_STATUSES = ['pending', 'success', 'failure', 'error'] as const;

/**
 * refunds/create → the refund the REST API would record, keyed by Shopify's refund id, in the
 * shop's currency. A webhook's transactions carry only the buyer's currency (`amount`,
 * `currency`): one in another currency is converted at the rate of the refund's own shop and
 * presentment amounts (its lines, shipping, adjustments and duties), which is Shopify's rate.
 */
export function mapRefund(body: unknown, shopDomain: string): MappedRefund {
  const refund = parsePayload(refundSchema, body, 'refunds/create');
  const refundId = idString(refund.id);
  const orderId = idString(refund.order_id);
  if (!refundId || !orderId) throw new Invalid('refunds/create: id and order_id are required');
  const rate = refundRate(refund);
  const transactions = (refund.transactions ?? [])
    .map((transaction, index) => ({ transaction, index }))
    .filter(({ transaction }) => transaction.kind?.toLowerCase() === 'refund')
    .map(({ transaction, index }) => refundTransaction(transaction, `transactions.${index}`, rate));
  const successful = transactions.filter((transaction) => transaction.status === 'success');
  const cents = successful.reduce((sum, transaction) => sum + (transaction.shop_cents ?? 0), 0);
  return {
    amount_cents: cents,
    transactions,
    refund: refundInputSchema.parse({
      order_id: orderId,
      refund_id: refundId,
      refund_amount: amountFromCents(cents),
      refund_reason: refund.note?.trim() || null,
      source: 'shopify',
      metadata: { shop: shopDomain, transaction_ids: successful.map((transaction) => transaction.transaction_id) },
    }),
  };
}

/**
 * A `refund` transaction in shop money. `rate` undefined: no refund around it (order_transactions/create),
 * so an amount without a shop-money set is not known yet.
 */
export function refundTransaction(transaction: ShopifyTransaction, field: string, rate?: Rate | null): RefundTransaction {
  const transactionId = idString(transaction.id);
  if (!transactionId) throw new Invalid(`${field}.id is missing`);
  const status = TRANSACTION_STATUSES.find((known) => known === transaction.status?.toLowerCase());
  if (!status) throw new Invalid(`${field}.status is not one of ${TRANSACTION_STATUSES.join(', ')}: ${JSON.stringify(transaction.status)}`);
  const presentment = centsOf(transaction.amount, `${field}.amount`);
  const currency = transaction.currency ?? null;
  return {
    transaction_id: transactionId,
    status,
    shop_cents:
      transaction.amount_set?.shop_money?.amount != null
        ? shopCents(transaction.amount_set, null, `${field}.amount`)
        : rate === undefined
          ? null
          : toShopMoney(presentment, currency, rate, field),
    presentment_cents: presentment,
    presentment_currency: currency,
  };
}

export interface Rate {
  shop_currency: string | null;
  presentment_currency: string | null;
  shop: Cents;
  presentment: Cents;
}

function toShopMoney(cents: Cents, currency: string | null, rate: Rate | null, field: string): Cents {
  // Same currency as the shop's, or nothing says otherwise: the amount is shop money already.
  if (!currency || !rate?.shop_currency || currency === rate.shop_currency) return cents;
  if (rate.presentment === 0 || currency !== rate.presentment_currency) {
    throw new Invalid(`${field}: ${currency} amount with no shop-money amounts in the refund to convert it by`);
  }
  // In whole minor units of the shop's currency (whole yen for a JPY shop).
  return roundMinor(prorate(cents, rate.shop, rate.presentment), 2, shopExponent(rate.shop_currency));
}

/** The refund's own amounts in both currencies (magnitudes: an adjustment's sign is the same in each). */
function refundRate(refund: ShopifyRefund): Rate | null {
  const sets: Array<MoneySet | null | undefined> = [
    ...(refund.refund_line_items ?? []).flatMap((line) => [line.subtotal_set, line.total_tax_set]),
    ...(refund.refund_shipping_lines ?? []).map((line) => line.subtotal_amount_set),
    ...(refund.order_adjustments ?? []).flatMap((adjustment) => [adjustment.amount_set, adjustment.tax_amount_set]),
    refund.total_duties_set,
  ];
  const rate: Rate = { shop_currency: null, presentment_currency: null, shop: 0, presentment: 0 };
  for (const set of sets) {
    if (set?.shop_money?.amount == null || set.presentment_money?.amount == null) continue;
    rate.shop_currency ??= set.shop_money.currency_code ?? null;
    rate.presentment_currency ??= set.presentment_money.currency_code ?? null;
    rate.shop += Math.abs(centsOf(set.shop_money.amount, 'shop_money.amount'));
    rate.presentment += Math.abs(centsOf(set.presentment_money.amount, 'presentment_money.amount'));
  }
  return rate.shop_currency ? rate : null;
}

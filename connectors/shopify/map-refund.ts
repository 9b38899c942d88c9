import { Invalid } from '../../core/errors';
import { type Minor, amountFromMinor, prorate } from '../../core/money';
import { type RefundInput, refundInputSchema } from '../../core/refunds/refund-input';
import { minorOf, parsePayload } from './map-paid-order';
import { idString } from './parse-lossless-json';
import { moneyExponent } from './shop-currency';
import { type MoneySet, type ShopifyRefund, type ShopifyTransaction, refundSchema } from './shopify-payloads';

/** One `refund` transaction of a refund, its amount in the shop's currency and in the buyer's, each in its own minor units. */
export interface RefundTransaction {
  transaction_id: string;
  status: 'pending' | 'success' | 'failure' | 'error';
  /** null: not known from this payload (order_transactions/create names neither the refund nor its rate). */
  shop_minor: Minor | null;
  /** The shop currency's decimals (KWD 3): shop_minor is in 10^-shop_exponent units. */
  shop_exponent: number;
  presentment_minor: Minor;
  presentment_exponent: number;
  presentment_currency: string | null;
}

export interface MappedRefund {
  refund: RefundInput;
  /** Money actually returned, in the shop currency's minor units: the successful `refund` transactions (0 for a restock only). */
  amount_minor: Minor;
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
  const minor = successful.reduce((sum, transaction) => sum + (transaction.shop_minor ?? 0), 0);
  const exponent = successful[0]?.shop_exponent ?? moneyExponent(rate?.shop_currency);
  return {
    amount_minor: minor,
    transactions,
    refund: refundInputSchema.parse({
      order_id: orderId,
      refund_id: refundId,
      refund_amount: amountFromMinor(minor, exponent),
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
  const currency = transaction.currency ?? null;
  const shopMoney = transaction.amount_set?.shop_money;
  const shopCurrency = shopMoney?.currency_code ?? rate?.shop_currency ?? currency;
  // No currency on the transaction: it is the shop's (as toShopMoney assumes).
  const presentmentExponent = moneyExponent(currency ?? shopCurrency);
  const presentment = minorOf(transaction.amount, presentmentExponent, `${field}.amount`);
  const shopExponent = moneyExponent(shopCurrency);
  return {
    transaction_id: transactionId,
    status,
    shop_minor:
      shopMoney?.amount != null
        ? minorOf(shopMoney.amount, shopExponent, `${field}.amount_set.shop_money.amount`)
        : rate === undefined
          ? null
          : toShopMoney(presentment, currency, rate, field),
    shop_exponent: shopExponent,
    presentment_minor: presentment,
    presentment_exponent: presentmentExponent,
    presentment_currency: currency,
  };
}

export interface Rate {
  shop_currency: string | null;
  presentment_currency: string | null;
  /** The refund's amounts in shop money (the shop currency's minor units) and in the buyer's (the presentment currency's). */
  shop: Minor;
  presentment: Minor;
}

function toShopMoney(presentment: Minor, currency: string | null, rate: Rate | null, field: string): Minor {
  // Same currency as the shop's, or nothing says otherwise: the amount is shop money already.
  if (!currency || !rate?.shop_currency || currency === rate.shop_currency) return presentment;
  if (rate.presentment === 0 || currency !== rate.presentment_currency) {
    throw new Invalid(`${field}: ${currency} amount with no shop-money amounts in the refund to convert it by`);
  }
  // presentment / rate.presentment is unitless, so this is in the shop's minor units (whole yen, fils), rounded half up once.
  return prorate(presentment, rate.shop, rate.presentment);
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
    rate.shop += Math.abs(minorOf(set.shop_money.amount, moneyExponent(rate.shop_currency), 'shop_money.amount'));
    rate.presentment += Math.abs(minorOf(set.presentment_money.amount, moneyExponent(rate.presentment_currency), 'presentment_money.amount'));
  }
  return rate.shop_currency ? rate : null;
}

import type { Brand } from '../brands/brand';
import { type Currency, currencyOf, requireCurrency } from '../currency';
import { Invalid, Unprocessable } from '../errors';
import { type ExchangeRate, type Minor, convertShare, exactMinor, maxMinor, parseExchangeRate, toMinor } from '../money';
import type { ConversionInput } from './conversion-input';

/**
 * A conversion's money, exact and checked before anything is read or written: its currency (the
 * caller's, else the brand's), every amount in that currency's minor units, and, for an order in
 * another currency than the brand's, the caller's exchange_rate (brand-currency units per one
 * unit of the order's currency). referrer_reward_paid, like the reward ledger, is in the brand's.
 * Both currencies are resolved here once; the steps after it read them from this value.
 */
export interface ConversionMoney {
  /** The order's currency: its amounts are exact at its exponent. */
  currency: Currency;
  /** The brand's currency: the reward's (and a claim's) amounts are in it. */
  brandCurrency: Currency;
  /** null: the order is in the brand's currency. */
  rate: ExchangeRate | null;
  order_value: Minor;
  order_subtotal: Minor | null;
  discount_applied: Minor | null;
  total_discount: Minor | null;
  referee_reward_paid: Minor | null;
  /** In the brand's currency. */
  referrer_reward_paid: Minor | null;
  coupon_discount: Minor;
  lines: Array<{ price: Minor; line_total: Minor }>;
}

export function conversionMoney(brand: Brand, input: ConversionInput): ConversionMoney {
  const brandCurrency = currencyOf(brand.currency);
  const currency = input.currency == null ? brandCurrency : currencyOf(requireCurrency(input.currency));
  const { exponent } = currency;
  const brandExponent = brandCurrency.exponent;
  const exact = (value: number, field: string) => exactMinor(value, exponent, field, currency.code);
  const optional = (value: number | null | undefined, field: string) => (value == null ? null : exact(value, field));
  const orderValue = exact(input.order_value, 'order_value');
  const rate = currency.code === brand.currency ? null : exchangeRate(brand, input, currency.code);
  // A reward is at most the order's value converted: that must fit the brand's money columns.
  if (rate && Math.abs(convertShare(orderValue, exponent, rate, brandExponent)) > maxMinor(brandExponent)) {
    throw new Invalid(`exchange_rate: ${rate.text} makes order_value larger than the largest amount in ${brand.currency}`);
  }
  return {
    currency,
    brandCurrency,
    rate,
    order_value: orderValue,
    order_subtotal: optional(input.order_subtotal, 'order_subtotal'),
    discount_applied: optional(input.discount_applied, 'discount_applied'),
    total_discount: optional(input.total_discount, 'total_discount'),
    referee_reward_paid: optional(input.referee_reward_paid, 'referee_reward_paid'),
    referrer_reward_paid:
      input.referrer_reward_paid == null ? null : exactMinor(input.referrer_reward_paid, brandExponent, 'referrer_reward_paid', brand.currency),
    coupon_discount: input.coupons_applied.reduce((sum, coupon, index) => sum + exact(coupon.discount_amount ?? 0, `coupons_applied.${index}.discount_amount`), 0),
    lines: input.products.map((line, index) => {
      // A unit price derived from a line total (items' line_total / quantity) may not be whole: the total is what counts.
      const price = line.line_total != null ? toMinor(line.price, exponent) : exact(line.price, `products.${index}.price`);
      return { price, line_total: line.line_total != null ? exact(line.line_total, `products.${index}.line_total`) : price * line.quantity };
    }),
  };
}

function exchangeRate(brand: Brand, input: ConversionInput, currency: string): ExchangeRate {
  if (input.exchange_rate == null) {
    throw new Unprocessable(
      `exchange_rate is required: the order is in ${currency} and the brand's currency is ${brand.currency} (send ${brand.currency} per 1 ${currency}, e.g. "1.0825")`,
      {},
      'exchange_rate_required',
    );
  }
  const rate = parseExchangeRate(input.exchange_rate);
  if (!rate) throw new Invalid('exchange_rate: must be a positive decimal such as "1.0825" (at most 12 decimals)');
  return rate;
}

import { z } from 'zod';
import { type ConversionInput, conversionInputSchema } from '../../core/conversions/conversion-input';
import { Invalid } from '../../core/errors';
import { canonicalIp } from '../../core/fraud/client-ip';
import { type Minor, amountFromMinor, minorFromDecimal, prorate, toMinor } from '../../core/money';
import { idString } from './parse-lossless-json';
import { moneyExponent } from './shop-currency';
import { type MoneySet, type ShopifyLineItem, type ShopifyOrder, orderSchema } from './shopify-payloads';

/** An orders/paid body mapped to the core's input, plus the codes attribution may choose from. */
export interface MappedPaidOrder {
  conversion: ConversionInput;
  /** The order's discount codes: a referral code among them is a redemption (a claim). */
  redeemed_codes: string[];
  /** Codes the shopper carried, best first: cart attributes, then landing_site parameters. */
  carried_codes: string[];
  /** A test order (`test: true`): a sale only where the brand counts test orders. */
  test: boolean;
}

const CART_CODE_ATTRIBUTES = ['ref', 'referral_code'];
const LANDING_CODE_PARAMETERS = ['ref', 'referral', 'adv', 'advocate'];

/** "12.345" or 12.345 → exact minor units of a currency with `exponent` decimals; a malformed amount names its field. */
export function minorOf(value: string | number | null | undefined, exponent: number, field: string): Minor {
  if (value === null || value === undefined || value === '') return 0;
  try {
    return typeof value === 'number' ? toMinor(value, exponent) : minorFromDecimal(value, exponent);
  } catch {
    throw new Invalid(`${field} is not an amount: ${JSON.stringify(value)}`);
  }
}

/** Validates a parsed webhook body against one of the payload schemas; failures name the field. */
export function parsePayload<T extends z.ZodType>(schema: T, body: unknown, what: string): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Invalid(`${what}: ${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  return parsed.data;
}

/**
 * orders/paid → the conversion the REST API would record for the same order, in the shop's
 * currency (the `*_set.shop_money` amounts; the buyer's currency is kept for display). The value
 * is the order after edits (`current_*`), before the refunds its body already shows (those come
 * as refunds/create; a body without its refunds, like reconcile's, gives the totals as placed),
 * without gift cards (selling one is not a sale). No email: the customer is
 * whoever the order names (customer id, phone), attributed by the codes it carries.
 */
export function mapPaidOrder(body: unknown, shopDomain: string): MappedPaidOrder {
  const order = parsePayload(orderSchema, body, 'orders/paid');
  const email = [order.email, order.contact_email, order.customer?.email].find((value) => value && value.trim() !== '');
  const orderId = idString(order.id);
  if (!orderId) throw new Invalid('orders/paid: id is missing');

  // The shop's currency first: every amount we count is in its minor units (fils for KWD, yen for JPY).
  const currency = order.currency ?? order.total_price_set?.shop_money?.currency_code ?? null;
  const exponent = moneyExponent(currency);
  const amount = (minor: Minor) => amountFromMinor(minor, exponent);
  const shop = (set: MoneySet | null | undefined, plain: string | number | null | undefined, field: string) => shopMinor(set, plain, exponent, field);
  const refunded = refundedInBody(order, exponent);
  const lines = (order.line_items ?? []).map((item, index) => paidLine(item, index, refunded.quantities, exponent));
  const giftCards = lines.filter((line) => line.gift_card).reduce((sum, line) => sum + line.revenue, 0);
  // current_* are net of refunds too: only a body that lists its refunds lets us add them back.
  const current = (set: MoneySet | null | undefined, field: string) =>
    set?.shop_money?.amount == null || !Array.isArray(order.refunds) ? null : minorOf(set.shop_money.amount, exponent, `${field}.shop_money.amount`);
  const currentTotal = current(order.current_total_price_set, 'current_total_price_set');
  const currentSubtotal = current(order.current_subtotal_price_set, 'current_subtotal_price_set');
  const total = currentTotal !== null ? currentTotal + refunded.total : shop(order.total_price_set, order.total_price, 'total_price');
  const subtotal =
    currentSubtotal !== null
      ? currentSubtotal + refunded.subtotal
      : order.subtotal_price == null && order.subtotal_price_set == null
        ? null
        : shop(order.subtotal_price_set, order.subtotal_price, 'subtotal_price');

  const coupons = (order.discount_codes ?? []).map((discount, index) => ({
    code: discount.code,
    minor: codeDiscount(order, discount.code, exponent) ?? minorOf(discount.amount, exponent, `discount_codes.${index}.amount`),
  }));
  const cart = noteAttributes(order);
  const presentment = order.current_total_price_set?.presentment_money ?? order.total_price_set?.presentment_money;
  const presentmentCurrency = order.presentment_currency ?? presentment?.currency_code ?? null;
  const presentmentExponent = moneyExponent(presentment?.currency_code ?? presentmentCurrency);
  const conversion = conversionInputSchema.parse({
    email: email ? email.trim() : null,
    customer_name: customerName(order),
    order_id: orderId,
    order_value: amount(total - giftCards),
    order_subtotal: subtotal === null ? null : amount(subtotal - giftCards),
    discount_applied: amount(coupons.reduce((sum, coupon) => sum + coupon.minor, 0)),
    total_discount: amount(shop(order.total_discounts_set, order.total_discounts, 'total_discounts')),
    visitor_id: cart.get('visitor_id') ?? null,
    customer_id: idString(order.customer?.id),
    customer_ip: canonicalIp(order.browser_ip ?? order.client_details?.browser_ip),
    products: lines.filter((line) => !line.gift_card && line.product.quantity > 0).map((line) => line.product),
    coupons_applied: coupons.map((coupon) => ({ code: coupon.code, discount_amount: amount(coupon.minor) })),
    currency,
    source: 'shopify',
    status: 'completed',
    metadata: {
      shop: shopDomain,
      order_name: order.name ?? null,
      total_tax: amount(shop(order.total_tax_set, order.total_tax, 'total_tax')),
      shipping: amount(shippingMinor(order, exponent)),
      // The buyer's currency and total (in its own decimals), for display: amounts we count are the shop's.
      presentment_currency: presentmentCurrency,
      ...(presentment?.amount != null
        ? { presentment_total: amountFromMinor(minorOf(presentment.amount, presentmentExponent, 'presentment_money.amount'), presentmentExponent) }
        : {}),
      ...(giftCards > 0 ? { gift_cards_excluded: amount(giftCards) } : {}),
      ...(email ? {} : { customer: { id: idString(order.customer?.id), phone: order.phone ?? order.customer?.phone ?? null } }),
      ...(order.test ? { test: true } : {}),
    },
  });
  const carried = [
    ...CART_CODE_ATTRIBUTES.map((name) => cart.get(name)),
    ...landingParameters(order.landing_site),
  ].filter((code): code is string => typeof code === 'string' && code.trim() !== '');
  return {
    conversion,
    redeemed_codes: coupons.map((coupon) => coupon.code),
    carried_codes: unique(carried.map((code) => code.trim())),
    test: order.test === true,
  };
}

/** A MoneyBag's shop amount, else the plain field (reconcile's shape carries shop money there), in the shop currency's minor units. */
export function shopMinor(set: MoneySet | null | undefined, plain: string | number | null | undefined, exponent: number, field: string): Minor {
  const amount = set?.shop_money?.amount;
  return amount != null ? minorOf(amount, exponent, `${field}_set.shop_money.amount`) : minorOf(plain, exponent, field);
}

/** What the refunds already in the body gave back (shop money), and how many units of each line. */
function refundedInBody(order: ShopifyOrder, exponent: number) {
  const quantities = new Map<string, number>();
  let subtotal = 0;
  let total = 0;
  for (const [at, refund] of (order.refunds ?? []).entries()) {
    for (const [index, line] of (refund.refund_line_items ?? []).entries()) {
      const field = `refunds.${at}.refund_line_items.${index}`;
      const lineSubtotal = shopMinor(line.subtotal_set, null, exponent, `${field}.subtotal`);
      subtotal += lineSubtotal;
      total += lineSubtotal + shopMinor(line.total_tax_set, null, exponent, `${field}.total_tax`);
      const lineId = idString(line.line_item_id);
      if (lineId) quantities.set(lineId, (quantities.get(lineId) ?? 0) + (line.quantity ?? 0));
    }
    for (const [index, line] of (refund.refund_shipping_lines ?? []).entries()) {
      total += shopMinor(line.subtotal_amount_set, null, exponent, `refunds.${at}.refund_shipping_lines.${index}.subtotal_amount`);
    }
  }
  return { quantities, subtotal, total };
}

/** A discount code's amount in shop money: the line allocations of its discount application. */
function codeDiscount(order: ShopifyOrder, code: string, exponent: number): Minor | null {
  const applications = order.discount_applications ?? [];
  let minor: Minor | null = null;
  for (const [index, item] of (order.line_items ?? []).entries()) {
    for (const [at, allocation] of (item.discount_allocations ?? []).entries()) {
      const application = applications[allocation.discount_application_index ?? -1];
      if (application?.type !== 'discount_code' || application.code?.toLowerCase() !== code.toLowerCase()) continue;
      minor = (minor ?? 0) + shopMinor(allocation.amount_set, allocation.amount, exponent, `line_items.${index}.discount_allocations.${at}.amount`);
    }
  }
  return minor;
}

function customerName(order: ShopifyOrder): string | null {
  const fromCustomer = [order.customer?.first_name, order.customer?.last_name].filter(Boolean).join(' ').trim();
  return fromCustomer || order.billing_address?.name?.trim() || null;
}

function shippingMinor(order: ShopifyOrder, exponent: number): Minor {
  const set = order.total_shipping_price_set?.shop_money?.amount;
  if (set != null) return minorOf(set, exponent, 'total_shipping_price_set.shop_money.amount');
  return (order.shipping_lines ?? []).reduce((sum, line, index) => sum + minorOf(line.price, exponent, `shipping_lines.${index}.price`), 0);
}

/** Cart attributes (note_attributes) by lower-cased name. */
function noteAttributes(order: ShopifyOrder): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const { name, value } of order.note_attributes ?? []) {
    const key = name.trim().toLowerCase();
    if (typeof value === 'string' && value.trim() !== '' && !attributes.has(key)) attributes.set(key, value.trim());
  }
  return attributes;
}

/** ref, referral, adv, advocate from the landing page's query string, in that order. */
export function landingParameters(landingSite: string | null | undefined): string[] {
  if (!landingSite) return [];
  let params: URLSearchParams;
  try {
    params = new URL(landingSite, 'https://shop.invalid').searchParams;
  } catch {
    return [];
  }
  return LANDING_CODE_PARAMETERS.map((name) => params.get(name)).filter((code): code is string => Boolean(code));
}

/** A line as paid (after edits, before refunds): its units, its revenue in shop money, its product line. */
function paidLine(item: ShopifyLineItem, index: number, refundedUnits: Map<string, number>, exponent: number) {
  const lineId = idString(item.id);
  const units = item.current_quantity == null ? item.quantity : item.current_quantity + (refundedUnits.get(lineId ?? '') ?? 0);
  const unit = shopMinor(item.price_set, item.price, exponent, `line_items.${index}.price`);
  const allocated = (item.discount_allocations ?? []).map((allocation, at) =>
    shopMinor(allocation.amount_set, allocation.amount, exponent, `line_items.${index}.discount_allocations.${at}.amount`),
  );
  const allocations = (item.discount_allocations ?? []).map((allocation, at) => ({
    amount: amountFromMinor(allocated[at]!, exponent),
    discount_application_index: allocation.discount_application_index ?? null,
  }));
  const allocatedTotal = allocated.reduce((sum, minor) => sum + minor, 0);
  // Allocations are for the units ordered; an edit that removed some keeps its share (rounded half up to the minor unit).
  const discount = units === item.quantity ? allocatedTotal : prorate(allocatedTotal, units, item.quantity);
  const revenue = unit * units - discount;
  const attributes: Record<string, unknown> = {
    line_item_id: lineId,
    product_id: idString(item.product_id),
    variant_id: idString(item.variant_id),
    variant_title: item.variant_title ?? null,
    discount_allocations: allocations,
  };
  return {
    gift_card: item.gift_card === true,
    revenue,
    product: {
      name: item.title || item.name || 'item',
      quantity: units,
      price: amountFromMinor(unit, exponent),
      // The line's revenue: what the shopper paid for it after its discount allocations.
      line_total: amountFromMinor(revenue, exponent),
      ...(item.sku ? { sku: item.sku } : {}),
      attributes,
    },
  };
}

function unique(codes: string[]): string[] {
  const seen = new Set<string>();
  return codes.filter((code) => {
    const key = code.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

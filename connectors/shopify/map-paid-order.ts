import { z } from 'zod';
import { type ConversionInput, conversionInputSchema } from '../../core/conversions/conversion-input';
import { Invalid } from '../../core/errors';
import { canonicalIp } from '../../core/fraud/client-ip';
import { type Cents, amountFromCents, centsFromDecimal, prorate, roundMinor, toCents } from '../../core/money';
import { idString } from './parse-lossless-json';
import { shopExponent } from './shop-currency';
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

/** "199.00" or 199 → exact cents; a malformed amount names its field. */
export function centsOf(value: string | number | null | undefined, field: string): Cents {
  if (value === null || value === undefined || value === '') return 0;
  try {
    return typeof value === 'number' ? toCents(value) : centsFromDecimal(value);
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

  const refunded = refundedInBody(order);
  const currency = order.currency ?? order.total_price_set?.shop_money?.currency_code ?? null;
  const exponent = shopExponent(currency);
  const lines = (order.line_items ?? []).map((item, index) => paidLine(item, index, refunded.quantities, exponent));
  const giftCards = lines.filter((line) => line.gift_card).reduce((sum, line) => sum + line.revenue, 0);
  // current_* are net of refunds too: only a body that lists its refunds lets us add them back.
  const current = (set: MoneySet | null | undefined, field: string) =>
    set?.shop_money?.amount == null || !Array.isArray(order.refunds) ? null : centsOf(set.shop_money.amount, `${field}.shop_money.amount`);
  const currentTotal = current(order.current_total_price_set, 'current_total_price_set');
  const currentSubtotal = current(order.current_subtotal_price_set, 'current_subtotal_price_set');
  const total = currentTotal !== null ? currentTotal + refunded.total : shopCents(order.total_price_set, order.total_price, 'total_price');
  const subtotal =
    currentSubtotal !== null
      ? currentSubtotal + refunded.subtotal
      : order.subtotal_price == null && order.subtotal_price_set == null
        ? null
        : shopCents(order.subtotal_price_set, order.subtotal_price, 'subtotal_price');

  const coupons = (order.discount_codes ?? []).map((discount, index) => ({
    code: discount.code,
    discount_amount: amountFromCents(codeDiscountCents(order, discount.code) ?? centsOf(discount.amount, `discount_codes.${index}.amount`)),
  }));
  const cart = noteAttributes(order);
  const presentment = order.current_total_price_set?.presentment_money ?? order.total_price_set?.presentment_money;
  const conversion = conversionInputSchema.parse({
    email: email ? email.trim() : null,
    customer_name: customerName(order),
    order_id: orderId,
    order_value: amountFromCents(total - giftCards),
    order_subtotal: subtotal === null ? null : amountFromCents(subtotal - giftCards),
    discount_applied: amountFromCents(coupons.reduce((sum, coupon) => sum + toCents(coupon.discount_amount), 0)),
    total_discount: amountFromCents(shopCents(order.total_discounts_set, order.total_discounts, 'total_discounts')),
    visitor_id: cart.get('visitor_id') ?? null,
    customer_id: idString(order.customer?.id),
    customer_ip: canonicalIp(order.browser_ip ?? order.client_details?.browser_ip),
    products: lines.filter((line) => !line.gift_card && line.product.quantity > 0).map((line) => line.product),
    coupons_applied: coupons,
    currency,
    source: 'shopify',
    status: 'completed',
    metadata: {
      shop: shopDomain,
      order_name: order.name ?? null,
      total_tax: amountFromCents(shopCents(order.total_tax_set, order.total_tax, 'total_tax')),
      shipping: amountFromCents(shippingCents(order)),
      // The buyer's currency and total, for display: amounts we count are the shop's.
      presentment_currency: order.presentment_currency ?? presentment?.currency_code ?? null,
      ...(presentment?.amount != null ? { presentment_total: amountFromCents(centsOf(presentment.amount, 'presentment_money.amount')) } : {}),
      ...(giftCards > 0 ? { gift_cards_excluded: amountFromCents(giftCards) } : {}),
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

/** A MoneyBag's shop amount, else the plain field (reconcile's shape carries shop money there). */
export function shopCents(set: MoneySet | null | undefined, plain: string | number | null | undefined, field: string): Cents {
  const amount = set?.shop_money?.amount;
  return amount != null ? centsOf(amount, `${field}_set.shop_money.amount`) : centsOf(plain, field);
}

/** What the refunds already in the body gave back (shop money), and how many units of each line. */
function refundedInBody(order: ShopifyOrder) {
  const quantities = new Map<string, number>();
  let subtotal = 0;
  let total = 0;
  for (const [at, refund] of (order.refunds ?? []).entries()) {
    for (const [index, line] of (refund.refund_line_items ?? []).entries()) {
      const field = `refunds.${at}.refund_line_items.${index}`;
      const lineSubtotal = shopCents(line.subtotal_set, null, `${field}.subtotal`);
      subtotal += lineSubtotal;
      total += lineSubtotal + shopCents(line.total_tax_set, null, `${field}.total_tax`);
      const lineId = idString(line.line_item_id);
      if (lineId) quantities.set(lineId, (quantities.get(lineId) ?? 0) + (line.quantity ?? 0));
    }
    for (const [index, line] of (refund.refund_shipping_lines ?? []).entries()) {
      total += shopCents(line.subtotal_amount_set, null, `refunds.${at}.refund_shipping_lines.${index}.subtotal_amount`);
    }
  }
  return { quantities, subtotal, total };
}

/** A discount code's amount in shop money: the line allocations of its discount application. */
function codeDiscountCents(order: ShopifyOrder, code: string): Cents | null {
  const applications = order.discount_applications ?? [];
  let cents: Cents | null = null;
  for (const [index, item] of (order.line_items ?? []).entries()) {
    for (const [at, allocation] of (item.discount_allocations ?? []).entries()) {
      const application = applications[allocation.discount_application_index ?? -1];
      if (application?.type !== 'discount_code' || application.code?.toLowerCase() !== code.toLowerCase()) continue;
      cents = (cents ?? 0) + shopCents(allocation.amount_set, allocation.amount, `line_items.${index}.discount_allocations.${at}.amount`);
    }
  }
  return cents;
}

function customerName(order: ShopifyOrder): string | null {
  const fromCustomer = [order.customer?.first_name, order.customer?.last_name].filter(Boolean).join(' ').trim();
  return fromCustomer || order.billing_address?.name?.trim() || null;
}

function shippingCents(order: ShopifyOrder): Cents {
  const set = order.total_shipping_price_set?.shop_money?.amount;
  if (set != null) return centsOf(set, 'total_shipping_price_set.shop_money.amount');
  return (order.shipping_lines ?? []).reduce((sum, line, index) => sum + centsOf(line.price, `shipping_lines.${index}.price`), 0);
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
  const unit = shopCents(item.price_set, item.price, `line_items.${index}.price`);
  const allocations = (item.discount_allocations ?? []).map((allocation, at) => ({
    amount: amountFromCents(shopCents(allocation.amount_set, allocation.amount, `line_items.${index}.discount_allocations.${at}.amount`)),
    discount_application_index: allocation.discount_application_index ?? null,
  }));
  const allocated = allocations.reduce((sum, allocation) => sum + toCents(allocation.amount), 0);
  // Allocations are for the units ordered; an edit that removed some keeps its share.
  const discount = units === item.quantity ? allocated : roundMinor(prorate(allocated, units, item.quantity), 2, exponent);
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
      price: amountFromCents(unit),
      // The line's revenue: what the shopper paid for it after its discount allocations.
      line_total: amountFromCents(revenue),
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

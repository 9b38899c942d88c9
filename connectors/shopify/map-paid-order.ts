import { z } from 'zod';
import { type ConversionInput, conversionInputSchema } from '../../core/conversions/conversion-input';
import { Invalid } from '../../core/errors';
import { type Cents, amountFromCents, centsFromDecimal, toCents } from '../../core/money';
import { idString } from './parse-lossless-json';
import { type ShopifyLineItem, type ShopifyOrder, orderSchema } from './shopify-payloads';

/** An orders/paid body mapped to the core's input, plus the codes attribution may choose from. */
export interface MappedPaidOrder {
  conversion: ConversionInput;
  /** The order's discount codes: a referral code among them is a redemption (a claim). */
  redeemed_codes: string[];
  /** Codes the shopper carried, best first: cart attributes, then landing_site parameters. */
  carried_codes: string[];
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
 * orders/paid → the conversion the REST API would record for the same order. Returns null when
 * the order has no customer email (a conversion is always about a customer).
 */
export function mapPaidOrder(body: unknown, shopDomain: string): MappedPaidOrder | null {
  const order = parsePayload(orderSchema, body, 'orders/paid');
  const email = [order.email, order.contact_email, order.customer?.email].find((value) => value && value.trim() !== '');
  if (!email) return null;
  const orderId = idString(order.id);
  if (!orderId) throw new Invalid('orders/paid: id is missing');

  const coupons = (order.discount_codes ?? []).map((discount, index) => ({
    code: discount.code,
    discount_amount: amountFromCents(centsOf(discount.amount, `discount_codes.${index}.amount`)),
  }));
  const cart = noteAttributes(order);
  const conversion = conversionInputSchema.parse({
    email: email.trim(),
    customer_name: customerName(order),
    order_id: orderId,
    order_value: amountFromCents(centsOf(order.total_price, 'total_price')),
    order_subtotal: order.subtotal_price == null ? null : amountFromCents(centsOf(order.subtotal_price, 'subtotal_price')),
    discount_applied: amountFromCents(coupons.reduce((sum, coupon) => sum + toCents(coupon.discount_amount), 0)),
    total_discount: amountFromCents(centsOf(order.total_discounts, 'total_discounts')),
    visitor_id: cart.get('visitor_id') ?? null,
    products: (order.line_items ?? []).map(productLine),
    coupons_applied: coupons,
    currency: order.currency ?? null,
    source: 'shopify',
    status: 'completed',
    metadata: {
      shop: shopDomain,
      order_name: order.name ?? null,
      total_tax: amountFromCents(centsOf(order.total_tax, 'total_tax')),
      shipping: amountFromCents(shippingCents(order)),
      ...(order.test ? { test: true } : {}),
    },
  });
  const carried = [
    ...CART_CODE_ATTRIBUTES.map((name) => cart.get(name)),
    ...landingParameters(order.landing_site),
  ].filter((code): code is string => typeof code === 'string' && code.trim() !== '');
  return { conversion, redeemed_codes: coupons.map((coupon) => coupon.code), carried_codes: unique(carried.map((code) => code.trim())) };
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

function productLine(item: ShopifyLineItem, index: number) {
  const unit = centsOf(item.price, `line_items.${index}.price`);
  const allocations = (item.discount_allocations ?? []).map((allocation, at) => ({
    amount: amountFromCents(centsOf(allocation.amount, `line_items.${index}.discount_allocations.${at}.amount`)),
    discount_application_index: allocation.discount_application_index ?? null,
  }));
  const discount = allocations.reduce((sum, allocation) => sum + toCents(allocation.amount), 0);
  const attributes: Record<string, unknown> = {
    line_item_id: idString(item.id),
    product_id: idString(item.product_id),
    variant_id: idString(item.variant_id),
    variant_title: item.variant_title ?? null,
    discount_allocations: allocations,
  };
  return {
    name: item.title || item.name || 'item',
    quantity: item.quantity,
    price: amountFromCents(unit),
    // The line's revenue: what the shopper paid for it after its discount allocations.
    line_total: amountFromCents(unit * item.quantity - discount),
    ...(item.sku ? { sku: item.sku } : {}),
    attributes,
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

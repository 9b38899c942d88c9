import { z } from 'zod';

/**
 * The parts of Shopify's REST-shaped webhook bodies we read (orders/paid, orders/cancelled,
 * refunds/create, order_transactions/create), as parsed by parseLosslessJson: ids are numbers, or
 * strings when beyond 2^53. Everything else in a body is ignored.
 */
const id = z.union([z.string(), z.number()]);
const amount = z.union([z.string(), z.number()]);

const money = z.object({ amount: amount.nullish(), currency_code: z.string().nullish() });
/** A MoneyBag: the shop's currency (what we count) and the buyer's (kept for display). */
export const moneySetSchema = z.object({ shop_money: money.nullish(), presentment_money: money.nullish() });
export type MoneySet = z.infer<typeof moneySetSchema>;

export const lineItemSchema = z.object({
  id: id.nullish(),
  title: z.string().nullish(),
  name: z.string().nullish(),
  quantity: z.number().int(),
  price: amount,
  price_set: moneySetSchema.nullish(),
  /** The quantity after order edits and refunds removed units. */
  current_quantity: z.number().int().nullish(),
  gift_card: z.boolean().nullish(),
  sku: z.string().nullish(),
  variant_id: id.nullish(),
  product_id: id.nullish(),
  variant_title: z.string().nullish(),
  discount_allocations: z
    .array(z.object({ amount, amount_set: moneySetSchema.nullish(), discount_application_index: z.number().int().nullish() }))
    .nullish(),
});
export type ShopifyLineItem = z.infer<typeof lineItemSchema>;

/** A payment transaction: `amount` is in the buyer's currency (`currency`); GraphQL-shaped ones carry amount_set. */
export const transactionSchema = z.object({
  id: id.nullish(),
  order_id: id.nullish(),
  kind: z.string().nullish(),
  status: z.string().nullish(),
  amount: amount.nullish(),
  currency: z.string().nullish(),
  amount_set: moneySetSchema.nullish(),
  test: z.boolean().nullish(),
});
export type ShopifyTransaction = z.infer<typeof transactionSchema>;

export const refundSchema = z.object({
  id,
  order_id: id,
  note: z.string().nullish(),
  transactions: z.array(transactionSchema).nullish(),
  // What the refund gives back, in both currencies: the rate its transactions are converted at.
  refund_line_items: z
    .array(z.object({ line_item_id: id.nullish(), quantity: z.number().int().nullish(), subtotal_set: moneySetSchema.nullish(), total_tax_set: moneySetSchema.nullish() }))
    .nullish(),
  refund_shipping_lines: z.array(z.object({ subtotal_amount_set: moneySetSchema.nullish() })).nullish(),
  order_adjustments: z.array(z.object({ amount_set: moneySetSchema.nullish(), tax_amount_set: moneySetSchema.nullish() })).nullish(),
  total_duties_set: moneySetSchema.nullish(),
});
export type ShopifyRefund = z.infer<typeof refundSchema>;

export const orderSchema = z.object({
  id,
  name: z.string().nullish(),
  email: z.string().nullish(),
  contact_email: z.string().nullish(),
  phone: z.string().nullish(),
  customer: z
    .object({ id: id.nullish(), email: z.string().nullish(), phone: z.string().nullish(), first_name: z.string().nullish(), last_name: z.string().nullish() })
    .nullish(),
  billing_address: z.object({ name: z.string().nullish() }).nullish(),
  currency: z.string().nullish(),
  presentment_currency: z.string().nullish(),
  total_price: amount,
  total_price_set: moneySetSchema.nullish(),
  subtotal_price: amount.nullish(),
  subtotal_price_set: moneySetSchema.nullish(),
  total_discounts: amount.nullish(),
  total_discounts_set: moneySetSchema.nullish(),
  total_tax: amount.nullish(),
  total_tax_set: moneySetSchema.nullish(),
  // After order edits and refunds: the order as it stands (absent from reconcile's shape).
  current_total_price_set: moneySetSchema.nullish(),
  current_subtotal_price_set: moneySetSchema.nullish(),
  current_total_discounts_set: moneySetSchema.nullish(),
  current_total_tax_set: moneySetSchema.nullish(),
  current_shipping_price_set: moneySetSchema.nullish(),
  total_shipping_price_set: moneySetSchema.nullish(),
  shipping_lines: z.array(z.object({ price: amount.nullish() })).nullish(),
  discount_codes: z.array(z.object({ code: z.string(), amount: amount.nullish() })).nullish(),
  discount_applications: z.array(z.object({ type: z.string().nullish(), code: z.string().nullish(), title: z.string().nullish() })).nullish(),
  note_attributes: z.array(z.object({ name: z.string(), value: z.unknown() })).nullish(),
  landing_site: z.string().nullish(),
  // The shopper's IP, for the fraud rules (core/fraud): never refused when malformed, just unused.
  browser_ip: z.string().nullish().catch(null),
  client_details: z.object({ browser_ip: z.string().nullish().catch(null) }).nullish().catch(null),
  line_items: z.array(lineItemSchema).nullish(),
  refunds: z.array(refundSchema.partial({ id: true, order_id: true })).nullish(),
  test: z.boolean().nullish(),
  cancelled_at: z.string().nullish(),
  cancel_reason: z.string().nullish(),
  financial_status: z.string().nullish(),
});
export type ShopifyOrder = z.infer<typeof orderSchema>;

/** customers/redact and customers/data_request. */
export const customerPrivacySchema = z.object({
  shop_domain: z.string().nullish(),
  customer: z.object({ id: id.nullish(), email: z.string().nullish(), phone: z.string().nullish() }).nullish(),
  orders_to_redact: z.array(id).nullish(),
  orders_requested: z.array(id).nullish(),
  data_request: z.object({ id: id.nullish() }).nullish(),
});
export type CustomerPrivacyRequest = z.infer<typeof customerPrivacySchema>;

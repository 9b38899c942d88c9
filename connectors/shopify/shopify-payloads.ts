import { z } from 'zod';

/**
 * The parts of Shopify's REST-shaped webhook bodies we read (orders/paid, refunds/create), as
 * parsed by parseLosslessJson: ids are numbers, or strings when beyond 2^53. Everything else in a
 * body is ignored.
 */
const id = z.union([z.string(), z.number()]);
const amount = z.union([z.string(), z.number()]);

export const moneySetSchema = z.object({ shop_money: z.object({ amount: amount.nullish() }).nullish() });

export const lineItemSchema = z.object({
  id: id.nullish(),
  title: z.string().nullish(),
  name: z.string().nullish(),
  quantity: z.number().int(),
  price: amount,
  sku: z.string().nullish(),
  variant_id: id.nullish(),
  product_id: id.nullish(),
  variant_title: z.string().nullish(),
  discount_allocations: z
    .array(z.object({ amount, discount_application_index: z.number().int().nullish() }))
    .nullish(),
});
export type ShopifyLineItem = z.infer<typeof lineItemSchema>;

export const orderSchema = z.object({
  id,
  name: z.string().nullish(),
  email: z.string().nullish(),
  contact_email: z.string().nullish(),
  customer: z
    .object({ email: z.string().nullish(), first_name: z.string().nullish(), last_name: z.string().nullish() })
    .nullish(),
  billing_address: z.object({ name: z.string().nullish() }).nullish(),
  currency: z.string().nullish(),
  total_price: amount,
  subtotal_price: amount.nullish(),
  total_discounts: amount.nullish(),
  total_tax: amount.nullish(),
  total_shipping_price_set: moneySetSchema.nullish(),
  shipping_lines: z.array(z.object({ price: amount.nullish() })).nullish(),
  discount_codes: z.array(z.object({ code: z.string(), amount: amount.nullish() })).nullish(),
  note_attributes: z.array(z.object({ name: z.string(), value: z.unknown() })).nullish(),
  landing_site: z.string().nullish(),
  line_items: z.array(lineItemSchema).nullish(),
  test: z.boolean().nullish(),
});
export type ShopifyOrder = z.infer<typeof orderSchema>;

export const refundSchema = z.object({
  id,
  order_id: id,
  note: z.string().nullish(),
  transactions: z
    .array(z.object({ id: id.nullish(), kind: z.string().nullish(), status: z.string().nullish(), amount: amount.nullish() }))
    .nullish(),
});
export type ShopifyRefund = z.infer<typeof refundSchema>;

/** customers/redact and customers/data_request. */
export const customerPrivacySchema = z.object({
  shop_domain: z.string().nullish(),
  customer: z.object({ id: id.nullish(), email: z.string().nullish(), phone: z.string().nullish() }).nullish(),
  orders_to_redact: z.array(id).nullish(),
  orders_requested: z.array(id).nullish(),
  data_request: z.object({ id: id.nullish() }).nullish(),
});
export type CustomerPrivacyRequest = z.infer<typeof customerPrivacySchema>;

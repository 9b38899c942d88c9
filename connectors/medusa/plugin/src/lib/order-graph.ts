import type {
  OrderDTO,
  OrderLineItemAdjustmentDTO,
  OrderLineItemDTO,
  OrderSummaryDTO,
  PaymentDTO,
  ProductCategoryDTO,
  PromotionDTO,
  RefundDTO,
  RemoteQueryFunction,
} from '@medusajs/framework/types';
import type { ConversionTrigger } from './plugin-options';

/**
 * Everything the referral service decides from, read fresh for every event: the order's state
 * (summary.paid_total / refunded_total, status, refunds), not the event's name, says what happened.
 */
export const ORDER_GRAPH_FIELDS = [
  'id',
  'display_id',
  'email',
  'currency_code',
  'status',
  'canceled_at',
  'total',
  'subtotal',
  'tax_total',
  'shipping_total',
  'discount_total',
  'summary.paid_total',
  'summary.refunded_total',
  'items.id',
  'items.title',
  'items.variant_sku',
  'items.quantity',
  'items.unit_price',
  'items.total',
  'items.product_id',
  'items.product.categories.name',
  'items.adjustments.code',
  'items.adjustments.amount',
  'items.adjustments.promotion_id',
  'shipping_methods.adjustments.code',
  'shipping_methods.adjustments.amount',
  'shipping_methods.adjustments.promotion_id',
  'promotions.id',
  'promotions.code',
  'promotions.is_automatic',
  'payment_collections.payments.id',
  'payment_collections.payments.refunds.id',
  'payment_collections.payments.refunds.amount',
  'payment_collections.payments.refunds.note',
  'payment_collections.payments.refunds.created_at',
];

export type AdjustmentGraph = Pick<OrderLineItemAdjustmentDTO, 'code' | 'amount' | 'promotion_id'>;

export interface OrderItemGraph
  extends Pick<OrderLineItemDTO, 'id' | 'title' | 'variant_sku' | 'quantity' | 'unit_price' | 'total' | 'product_id'> {
  product?: { categories?: Array<Pick<ProductCategoryDTO, 'name'>> | null } | null;
  adjustments?: AdjustmentGraph[] | null;
}

export type RefundGraph = Pick<RefundDTO, 'id' | 'amount' | 'note' | 'created_at'>;

export interface PaymentGraph extends Pick<PaymentDTO, 'id'> {
  refunds?: RefundGraph[] | null;
}

/** What query.graph returns for ORDER_GRAPH_FIELDS, in Medusa's own types (amounts are BigNumberValue). */
export interface OrderGraph
  extends Pick<
    OrderDTO,
    'id' | 'display_id' | 'email' | 'currency_code' | 'status' | 'canceled_at' | 'total' | 'subtotal' | 'tax_total' | 'shipping_total' | 'discount_total'
  > {
  summary?: Pick<OrderSummaryDTO, 'paid_total' | 'refunded_total'> | null;
  items?: OrderItemGraph[] | null;
  shipping_methods?: Array<{ adjustments?: AdjustmentGraph[] | null }> | null;
  promotions?: Array<Pick<PromotionDTO, 'id' | 'code' | 'is_automatic'>> | null;
  payment_collections?: Array<{ payments?: PaymentGraph[] | null }> | null;
}

/** The signed body POSTed to /medusa/webhooks. */
export interface OrderSnapshot {
  version: 1;
  /** One per Medusa event: the same on every retry of that delivery. */
  event_id: string;
  event_name: string;
  occurred_at: string;
  conversion_trigger: ConversionTrigger;
  order: OrderGraph;
}

export type QueryGraph = Pick<RemoteQueryFunction, 'graph'>;

export async function readOrderGraph(query: QueryGraph, orderId: string): Promise<OrderGraph | null> {
  const { data } = await query.graph({ entity: 'order', fields: ORDER_GRAPH_FIELDS, filters: { id: orderId } });
  return (data[0] as OrderGraph | undefined) ?? null;
}

/** Payment events name a payment: its collection is linked to the order (as Medusa's own refund workflow looks it up). */
export async function findOrderIdOfPayment(query: QueryGraph, paymentId: string): Promise<string | null> {
  const { data: payments } = await query.graph({
    entity: 'payment',
    fields: ['id', 'payment_collection_id'],
    filters: { id: paymentId },
  });
  const collectionId = (payments[0] as Pick<PaymentDTO, 'payment_collection_id'> | undefined)?.payment_collection_id;
  if (!collectionId) return null;
  const { data: links } = await query.graph({
    entity: 'order_payment_collection',
    fields: ['order.id'],
    filters: { payment_collection_id: collectionId },
  });
  return (links[0] as { order?: { id?: string } | null } | undefined)?.order?.id ?? null;
}

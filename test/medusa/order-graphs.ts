import { BigNumber } from '@medusajs/framework/utils';
import type { OrderGraph, OrderItemGraph, OrderSnapshot } from '../../connectors/medusa/plugin/src/lib/order-graph';

/**
 * Realistic Medusa order graphs, typed by Medusa's own DTOs (through the plugin's OrderGraph):
 * what query.graph returns for the plugin's fields. Amounts come the way Medusa hands them out —
 * plain numbers, BigNumber objects (computed totals) and strings — so every form is exercised.
 */
export interface OrderState {
  id: string;
  email: string;
  /** Promotions used on the order; automatic ones apply without a code being entered. */
  promotions?: Array<{ code: string; discount: number; automatic?: boolean }>;
  /** 'all': the payment is captured (summary.paid_total = total). */
  paid?: 'none' | 'all';
  refunds?: Array<{ id: string; amount: number; created_at: string; note?: string }>;
  canceled?: boolean;
}

/** Two tees at 25.00 and a mug at 15.00, shipping 5.00, tax 0: 70.00 before promotions. */
const LINES = [
  { sku: 'TEE-BLK-M', title: 'Black tee', quantity: 2, unit: 25, category: 'Shirts' },
  { sku: 'MUG-01', title: 'Mug', quantity: 1, unit: 15, category: 'Kitchen' },
];
const SHIPPING = 5;

export function paymentIdOf(orderId: string): string {
  return `pay_${orderId}`;
}

export function paymentCollectionIdOf(orderId: string): string {
  return `paycol_${orderId}`;
}

/** The order's discount: every promotion's amount, taken off the first line. */
function discountOf(state: OrderState): number {
  return (state.promotions ?? []).reduce((sum, promotion) => sum + promotion.discount, 0);
}

export function orderTotal(state: OrderState): number {
  return LINES.reduce((sum, line) => sum + line.unit * line.quantity, 0) + SHIPPING - discountOf(state);
}

export function orderGraph(state: OrderState): OrderGraph {
  const promotions = (state.promotions ?? []).map((promotion, index) => ({
    id: `promo_${state.id}_${index}`,
    code: promotion.code,
    is_automatic: promotion.automatic ?? false,
  }));
  const items: OrderItemGraph[] = LINES.map((line, index) => {
    const adjustments =
      index === 0
        ? (state.promotions ?? []).map((promotion, at) => ({
            code: promotion.code,
            amount: new BigNumber(promotion.discount),
            promotion_id: `promo_${state.id}_${at}`,
          }))
        : [];
    const discount = adjustments.reduce((sum, adjustment) => sum + adjustment.amount.numeric, 0);
    return {
      id: `ordli_${state.id}_${index}`,
      title: line.title,
      variant_sku: line.sku,
      quantity: line.quantity,
      unit_price: line.unit,
      total: new BigNumber(line.unit * line.quantity - discount),
      product_id: `prod_${line.sku}`,
      product: { categories: [{ name: line.category }] },
      adjustments,
    };
  });
  const placedTotal = orderTotal(state);
  const refunded = (state.refunds ?? []).reduce((sum, refund) => sum + refund.amount, 0);
  // As in Medusa 2.21: each refund adds a credit line that lowers `total`; paid_total stays what was captured.
  const total = placedTotal - refunded;
  return {
    id: state.id,
    display_id: 1001,
    email: state.email,
    currency_code: 'eur',
    status: state.canceled ? 'canceled' : 'pending',
    canceled_at: state.canceled ? new Date('2026-11-20T12:00:00Z') : undefined,
    total: new BigNumber(total),
    subtotal: new BigNumber(placedTotal - SHIPPING),
    tax_total: 0,
    shipping_total: new BigNumber(SHIPPING),
    discount_total: new BigNumber(discountOf(state)),
    summary: {
      paid_total: new BigNumber(state.paid === 'all' ? placedTotal : 0),
      refunded_total: new BigNumber(refunded),
    },
    items,
    shipping_methods: [{ adjustments: [] }],
    promotions,
    payment_collections: [
      {
        payments: [
          {
            id: paymentIdOf(state.id),
            refunds: (state.refunds ?? []).map((refund) => ({
              id: refund.id,
              // Strings, as a raw decimal column would give them.
              amount: refund.amount.toFixed(2),
              note: refund.note ?? null,
              created_at: new Date(refund.created_at),
            })),
          },
        ],
      },
    ],
  };
}

/** The body the plugin would send for this state, as JSON (BigNumber values through their toJSON). */
export function snapshotBody(
  state: OrderState,
  options: { event_name?: string; event_id?: string; conversion_trigger?: OrderSnapshot['conversion_trigger'] } = {},
): string {
  const snapshot: OrderSnapshot = {
    version: 1,
    event_id: options.event_id ?? `evt_${state.id}_${Math.random().toString(36).slice(2)}`,
    event_name: options.event_name ?? 'order.placed',
    occurred_at: new Date().toISOString(),
    conversion_trigger: options.conversion_trigger ?? 'captured',
    order: orderGraph(state),
  };
  return JSON.stringify(snapshot);
}

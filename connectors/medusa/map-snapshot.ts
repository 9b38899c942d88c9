import { conversionInputSchema } from '../../core/conversions/conversion-input';
import type { PaidOrderInput } from '../../core/conversions/paid-order';
import { type Minor, amountFromMinor, toMinor } from '../../core/money';
import { type RefundInput, refundInputSchema } from '../../core/refunds/refund-input';
import type { MedusaSnapshot } from './snapshot-schema';

/** Medusa's totals and the sum of its refunds may differ by rounding: within this, a refund is full. */
const ONE_MINOR_UNIT: Minor = 1;

/** The core calls one snapshot asks for, in the order they are made. */
export interface MedusaOrderPlan {
  order_id: string;
  /** The order currency's decimals (KWD 3): its amounts are exact at them. */
  exponent: number;
  /** claim (when a referral code was redeemed) → conversion; null while the order does not count. */
  paid_order: PaidOrderInput | null;
  /** Medusa refunds, oldest first, each keyed by its refund id. */
  refunds: RefundInput[];
  /** A canceled order: whatever is still recorded is refunded in full, once (`cancel:<order id>`). */
  cancellation: RefundInput | null;
}

type Order = MedusaSnapshot['order'];
type Adjustment = Order['items'][number]['adjustments'][number];

/**
 * Maps an order snapshot to the calls the REST API would make, deciding from the order's state and
 * never from the event's name: it converts once paid_total > 0 (or once placed, when the merchant
 * chose that trigger), and every refund Medusa holds is replayed — the core ignores ones it has.
 */
export function mapMedusaSnapshot(snapshot: MedusaSnapshot): MedusaOrderPlan {
  const order = snapshot.order;
  const paid = order.summary?.paid_total ?? 0;
  const canceled = order.status === 'canceled' || Boolean(order.canceled_at);
  // Under `placed` a canceled, unpaid order is still recorded, so its cancellation can reverse it
  // even when this snapshot overtakes the one of order.placed.
  const counts = snapshot.conversion_trigger === 'placed' || paid > 0;
  const email = order.email?.trim();

  const value = orderValue(order);
  const amount = (minor: Minor) => amountFromMinor(minor, snapshot.exponent);
  const orderRefunds = refunds(order, value, amount);
  return {
    order_id: order.id,
    exponent: snapshot.exponent,
    paid_order: counts && email ? paidOrder(snapshot, email, value, amount) : null,
    refunds: orderRefunds,
    cancellation: canceled ? cancellation(order, value, orderRefunds, snapshot.exponent) : null,
  };
}

/**
 * What the order is worth: what was paid once anything was (Medusa 2.21's refunds add credit lines
 * that lower `total`, never `paid_total`), else the total as placed (nothing is refunded yet). So
 * every snapshot of an order names the same value, whichever event it was read for and whenever.
 */
export function orderValue(order: Order): Minor {
  const paid = order.summary?.paid_total ?? 0;
  return paid > 0 ? paid : order.total;
}

/** A cancel refunds what was paid and not yet refunded (Medusa emits no payment.refunded for it). */
function cancellation(order: Order, value: Minor, orderRefunds: RefundInput[], exponent: number): RefundInput | null {
  const refunded = orderRefunds.reduce((sum, refund) => sum + (refund.refund_amount == null ? value : toMinor(refund.refund_amount, exponent)), 0);
  const rest = Math.max(0, value - Math.max(refunded, order.summary?.refunded_total ?? 0));
  if (rest === 0) return null;
  return refundInputSchema.parse({
    order_id: order.id,
    refund_id: `cancel:${order.id}`,
    refund_amount: amountFromMinor(rest, exponent),
    is_full_refund: false,
    refund_reason: 'order canceled',
    source: 'medusa',
    metadata: { medusa_order_id: order.id },
  });
}

function paidOrder(snapshot: MedusaSnapshot, email: string, value: Minor, amount: (minor: Minor) => number): PaidOrderInput {
  const order = snapshot.order;
  const codes = redeemedCodes(order);
  const adjustments = allAdjustments(order);
  const conversion = conversionInputSchema.parse({
    email,
    order_id: order.id,
    order_value: amount(value),
    order_subtotal: amount(Math.max(0, value - order.tax_total - order.shipping_total)),
    total_discount: amount(order.discount_total),
    products: order.items.map((item) => ({
      name: item.title?.trim() || 'Unknown Product',
      quantity: item.quantity,
      price: amount(item.unit_price),
      line_total: amount(item.total),
      ...(item.variant_sku ? { sku: item.variant_sku } : {}),
      attributes: {
        medusa_item_id: item.id ?? null,
        product_id: item.product_id ?? null,
        categories: (item.product?.categories ?? []).map((category) => category.name).filter(Boolean),
      },
    })),
    coupons_applied: codes.map((code) => ({
      code,
      discount_amount: amount(sumOf(adjustments.filter((adjustment) => sameCode(adjustment.code, code)))),
    })),
    currency: order.currency_code?.toUpperCase() ?? null,
    source: 'medusa',
    status: 'completed',
    metadata: {
      medusa_order_id: order.id,
      medusa_display_id: order.display_id ?? null,
      medusa_event: snapshot.event_name,
      conversion_trigger: snapshot.conversion_trigger,
    },
  });
  return { conversion, redeemed_codes: codes, claim_source: 'medusa' };
}

/** Codes the customer entered: promotions and adjustment codes, except automatic promotions. */
export function redeemedCodes(order: Order): string[] {
  const automatic = order.promotions.filter((promotion) => promotion.is_automatic === true);
  const automaticIds = new Set(automatic.map((promotion) => promotion.id).filter(Boolean));
  const candidates = [
    ...order.promotions.filter((promotion) => promotion.is_automatic !== true).map((promotion) => promotion.code),
    ...allAdjustments(order)
      .filter((adjustment) => !(adjustment.promotion_id && automaticIds.has(adjustment.promotion_id)))
      .map((adjustment) => adjustment.code),
  ];
  const codes = new Map<string, string>();
  for (const candidate of candidates) {
    const code = candidate?.trim();
    if (code && !codes.has(code.toLowerCase())) codes.set(code.toLowerCase(), code);
  }
  return [...codes.values()];
}

/**
 * Every refund Medusa recorded, oldest first. One is full once the refunds so far reach what was
 * paid (within a minor unit): it then refunds whatever remains, so rounding never leaves a minor unit.
 */
function refunds(order: Order, paid: Minor, amount: (minor: Minor) => number): RefundInput[] {
  const byId = new Map<string, { id: string; amount: Minor; note?: string | null; created_at?: string | null; payment_id: string | null }>();
  for (const collection of order.payment_collections) {
    for (const payment of collection.payments) {
      for (const refund of payment.refunds) byId.set(refund.id, { ...refund, payment_id: payment.id ?? null });
    }
  }
  const ordered = [...byId.values()]
    .filter((refund) => refund.amount > 0)
    .sort((a, b) => (a.created_at ?? '').localeCompare(b.created_at ?? '') || a.id.localeCompare(b.id));
  const refundedTotal = order.summary?.refunded_total ?? 0;
  let cumulative: Minor = 0;
  return ordered.map((refund, index) => {
    cumulative += refund.amount;
    const reported = index === ordered.length - 1 ? Math.max(cumulative, refundedTotal) : cumulative;
    const full = paid > 0 && reported >= paid - ONE_MINOR_UNIT;
    return refundInputSchema.parse({
      order_id: order.id,
      refund_id: refund.id,
      refund_amount: full ? null : amount(refund.amount),
      is_full_refund: full,
      refund_reason: refund.note?.trim() || null,
      source: 'medusa',
      metadata: { medusa_refund_amount: amount(refund.amount), medusa_payment_id: refund.payment_id },
    });
  });
}

function allAdjustments(order: Order): Adjustment[] {
  return [...order.items.flatMap((item) => item.adjustments), ...order.shipping_methods.flatMap((method) => method.adjustments)];
}

function sumOf(adjustments: Adjustment[]): Minor {
  return adjustments.reduce((sum, adjustment) => sum + adjustment.amount, 0);
}

function sameCode(a: string | null | undefined, b: string): boolean {
  return (a ?? '').trim().toLowerCase() === b.toLowerCase();
}

import { randomUUID } from 'node:crypto';
import type { ScenarioRequest } from './load-scenario';

/** Request bodies as a busy store sends them: every order new, attributed by a referral code. */

const PRODUCTS = [
  { name: 'Organic cotton tee', quantity: 2, price: 25, sku: 'TEE-ORG-M', variant: 'M / Black' },
  { name: 'Stoneware mug', quantity: 1, price: 30, sku: 'MUG-STN' },
  { name: 'Canvas cap', quantity: 1, price: 40, sku: 'CAP-CNV', category: 'Accessories' },
];

let sequence = 0;
const runId = Date.now().toString(36);

function pick<T>(list: readonly T[]): T {
  return list[Math.floor(Math.random() * list.length)]!;
}

/** Order number `n` of this run: customer, code and lines follow from n, so a replay is byte-identical. */
function conversionBody(n: number, codes: readonly string[]): string {
  return JSON.stringify({
    email: `customer${n}-${runId}@shop.example`,
    order_id: `bench-${runId}-${n}`,
    order_value: 120,
    order_subtotal: 120,
    referral_code: codes[n % codes.length],
    currency: 'USD',
    source: 'bench',
    products: PRODUCTS,
  });
}

/** A new order: unique order_id and customer email, one of the advocates' codes, 3 product lines. */
export function newConversion(codes: readonly string[]): () => ScenarioRequest {
  return () => {
    sequence += 1;
    return { body: conversionBody(sequence, codes), key: String(sequence) };
  };
}

/** The same orders again, cycling: every one must come back 200 `duplicate: true`. */
export function replayConversion(codes: readonly string[], orders: readonly string[]): () => ScenarioRequest {
  let next = 0;
  return () => {
    const n = Number(orders[next % orders.length]);
    next += 1;
    return { body: conversionBody(n, codes) };
  };
}

/** The order_id of order number `n` (a key newConversion reported). */
export function orderIdOf(order: string): string {
  return `bench-${runId}-${order}`;
}

/** The customer email of order number `n`. */
export function emailOf(order: string): string {
  return `customer${order}-${runId}@shop.example`;
}

/** A partial refund of 1.00 with its own refund_id, round-robin over orders so rows do not contend. */
export function partialRefund(orders: readonly string[]): () => ScenarioRequest {
  let next = 0;
  return () => {
    const orderId = orderIdOf(orders[next % orders.length]!);
    next += 1;
    sequence += 1;
    const body = JSON.stringify({
      order_id: orderId,
      refund_id: `refund-${runId}-${sequence}`,
      refund_amount: 1,
      is_full_refund: false,
      refund_reason: 'bench',
      source: 'bench',
    });
    return { body };
  };
}

/** Half new customers (eligible), half customers who already bought with a referral. */
export function eligibilityCheck(codes: readonly string[], orders: readonly string[]): () => ScenarioRequest {
  return () => {
    sequence += 1;
    const email = sequence % 2 === 0 || orders.length === 0 ? `prospect${sequence}-${runId}@shop.example` : emailOf(pick(orders));
    return { body: JSON.stringify({ referral_code: pick(codes), customer_email: email }) };
  };
}


/** A referred visitor landing: a new device each time, one of the advocates' codes. */
export function referredVisit(codes: readonly string[]): () => ScenarioRequest {
  return () => ({ body: JSON.stringify({ referral_code: pick(codes), visitor_id: randomUUID(), landing_page: '/', share_channel: 'link' }) });
}

/** A new customer claiming a referral discount on a 120.00 cart (10 % off). */
export function newClaim(codes: readonly string[]): () => ScenarioRequest {
  return () => {
    sequence += 1;
    return {
      body: JSON.stringify({
        referral_code: pick(codes), email: `claimant${sequence}-${runId}@shop.example`, name: 'Casey', raw_value: 120, discount_type: 'percentage', discount_value: 10, source: 'bench',
      }),
    };
  };
}

export interface MixedRoute {
  path: string;
  /** Out of 100 requests. */
  share: number;
  nextRequest: () => ScenarioRequest;
}

/** Requests of several routes in fixed proportions, dealt in a repeating shuffled deck of 100. */
export function mixedRequests(routes: readonly MixedRoute[]): () => ScenarioRequest {
  const deck = routes.flatMap((route) => Array.from({ length: route.share }, () => route));
  for (let i = deck.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [deck[i], deck[j]] = [deck[j]!, deck[i]!];
  }
  let next = 0;
  return () => {
    const route = deck[next % deck.length]!;
    next += 1;
    return { ...route.nextRequest(), path: route.path };
  };
}

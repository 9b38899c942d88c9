import { decimalFromMinor, minorFromDecimal } from '../../core/money';
import type { AdminApi } from './admin-api';
import { moneyExponent } from './shop-currency';

/**
 * Paid orders and their refunds from the GraphQL Admin API, turned into the REST shapes of the
 * orders/paid and refunds/create webhook bodies, so reconcile feeds them through the same path.
 *
 * Shopify refuses a query whose requested cost exceeds 1,000 points (an object costs 1, a
 * connection 2 + first × one node), so page sizes are worked out from each node's cost below,
 * and nested lists (line items, refunds, transactions) are paged by follow-up queries. Only
 * fields `read_orders` covers are selected: no customer (read_customers), no product or variant
 * (read_products); `email` needs protected customer data level 2.
 */
export const MAX_QUERY_COST = 1000;

/** A MoneyBag in both currencies: the shop's (what we count) and the buyer's (for display). */
const MONEY = 'shopMoney { amount currencyCode } presentmentMoney { amount currencyCode }';
/** The bag and its two amounts. */
const MONEY_COST = 3;

export const LINE_ITEM_FIELDS = `id title name quantity currentQuantity sku variantTitle isGiftCard
            originalUnitPriceSet { ${MONEY} }
            discountAllocations {
              allocatedAmountSet { ${MONEY} }
              discountApplication { ... on DiscountCodeApplication { code } }
            }`;
/** A line item, its price, and its (unpaged) allocations: the allocation, its amount and its application. */
const LINE_ITEM_COST = 1 + MONEY_COST + (1 + MONEY_COST + 1);

/** An order's own fields: everything but its lines and refunds. */
export const ORDER_FIELDS = `id name email test displayFinancialStatus currencyCode presentmentCurrencyCode cancelledAt cancelReason
        totalPriceSet { ${MONEY} }
        subtotalPriceSet { ${MONEY} }
        totalDiscountsSet { ${MONEY} }
        totalTaxSet { ${MONEY} }
        totalShippingPriceSet { ${MONEY} }
        currentTotalPriceSet { ${MONEY} }
        currentSubtotalPriceSet { ${MONEY} }
        currentTotalDiscountsSet { ${MONEY} }
        currentTotalTaxSet { ${MONEY} }
        currentShippingPriceSet { ${MONEY} }
        discountCodes
        customAttributes { key value }
        customerJourneySummary { lastVisit { landingPage } firstVisit { landingPage } }`;

/** Line items and refund ids fetched with each order; the rest come from follow-up queries. */
export const LINES_WITH_ORDER = 10;
export const REFUNDS_WITH_ORDER = 10;
/** An order node: itself, ten money bags, its attributes, its journey (summary and two visits), its first lines and refund ids. */
const ORDER_NODE_COST = 1 + 10 * MONEY_COST + 1 + 3 + (2 + LINES_WITH_ORDER * LINE_ITEM_COST) + REFUNDS_WITH_ORDER;

/** As many whole nodes as fit in one query under the limit, with `fixed` points besides them. */
export function pageSizeFor(nodeCost: number, fixed = 2, most = 250): number {
  return Math.min(most, Math.floor((MAX_QUERY_COST - fixed) / nodeCost));
}

export const ORDERS_PAGE_SIZE = pageSizeFor(ORDER_NODE_COST);
/** order(id) { lineItems(…) }: the order, the connection and its lines. */
export const LINES_PAGE_SIZE = pageSizeFor(LINE_ITEM_COST, 1 + 2);
const TRANSACTION_FIELDS = `id kind status test processedAt amountSet { ${MONEY} }`;
const TRANSACTION_COST = 1 + MONEY_COST;
/** What a refund gives back per line, in both currencies: the order's value before refunds is its current_* plus these. */
const REFUND_LINE_FIELDS = `quantity lineItem { id } subtotalSet { ${MONEY} } totalTaxSet { ${MONEY} }`;
const REFUND_LINE_COST = 1 + 1 + 2 * MONEY_COST;
const REFUND_SHIPPING_FIELDS = `subtotalAmountSet { ${MONEY} }`;
const REFUND_SHIPPING_COST = 1 + MONEY_COST;
/** Fetched with each refund; more come from follow-up queries. */
export const TRANSACTIONS_WITH_REFUND = 50;
export const REFUND_LINES_WITH_REFUND = 50;
export const SHIPPING_LINES_WITH_REFUND = 5;
/** refund(id) { transactions(…) }: the refund, the connection and its transactions (likewise its lines). */
export const TRANSACTIONS_PAGE_SIZE = pageSizeFor(TRANSACTION_COST, 1 + 2);
export const REFUND_LINES_PAGE_SIZE = pageSizeFor(REFUND_LINE_COST, 1 + 2);
export const REFUND_SHIPPING_PAGE_SIZE = pageSizeFor(REFUND_SHIPPING_COST, 1 + 2);

export const ORDERS_QUERY = `#graphql
  query ReconcileOrders($first: Int!, $after: String, $query: String!) {
    orders(first: $first, after: $after, query: $query, sortKey: UPDATED_AT) {
      pageInfo { hasNextPage endCursor }
      nodes {
        ${ORDER_FIELDS}
        lineItems(first: ${LINES_WITH_ORDER}) {
          pageInfo { hasNextPage endCursor }
          nodes {
            ${LINE_ITEM_FIELDS}
          }
        }
        refunds(first: ${REFUNDS_WITH_ORDER}) { id }
      }
    }
  }`;

export const ORDER_LINE_ITEMS_QUERY = `#graphql
  query ReconcileOrderLineItems($id: ID!, $first: Int!, $after: String) {
    order(id: $id) {
      lineItems(first: $first, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes {
          ${LINE_ITEM_FIELDS}
        }
      }
    }
  }`;

/** Order.refunds is a list, not a connection: when the first ones filled it, ask for them all. */
export const ALL_REFUNDS_CAP = 250;
export const ORDER_REFUNDS_QUERY = `#graphql
  query ReconcileOrderRefunds($id: ID!) {
    order(id: $id) { refunds(first: ${ALL_REFUNDS_CAP}) { id } }
  }`;

/** A refund with its money (transactions) and what it gave back (lines, shipping): what refunds/create carries. */
export const REFUND_QUERY = `#graphql
  query ReconcileRefund($id: ID!) {
    refund(id: $id) {
      id note createdAt
      transactions(first: ${TRANSACTIONS_WITH_REFUND}) { pageInfo { hasNextPage endCursor } nodes { ${TRANSACTION_FIELDS} } }
      refundLineItems(first: ${REFUND_LINES_WITH_REFUND}) { pageInfo { hasNextPage endCursor } nodes { ${REFUND_LINE_FIELDS} } }
      refundShippingLines(first: ${SHIPPING_LINES_WITH_REFUND}) { pageInfo { hasNextPage endCursor } nodes { ${REFUND_SHIPPING_FIELDS} } }
    }
  }`;

export const REFUND_TRANSACTIONS_QUERY = `#graphql
  query ReconcileRefundTransactions($id: ID!, $first: Int!, $after: String) {
    refund(id: $id) { transactions(first: $first, after: $after) { pageInfo { hasNextPage endCursor } nodes { ${TRANSACTION_FIELDS} } } }
  }`;

export const REFUND_LINES_QUERY = `#graphql
  query ReconcileRefundLineItems($id: ID!, $first: Int!, $after: String) {
    refund(id: $id) { refundLineItems(first: $first, after: $after) { pageInfo { hasNextPage endCursor } nodes { ${REFUND_LINE_FIELDS} } } }
  }`;

export const REFUND_SHIPPING_QUERY = `#graphql
  query ReconcileRefundShippingLines($id: ID!, $first: Int!, $after: String) {
    refund(id: $id) { refundShippingLines(first: $first, after: $after) { pageInfo { hasNextPage endCursor } nodes { ${REFUND_SHIPPING_FIELDS} } } }
  }`;

export const ORDERS_COUNT_QUERY = `#graphql
  query ReconcileOrdersCount($query: String!) {
    ordersCount(query: $query) { count }
  }`;

interface MoneyV2 {
  amount: string;
  currencyCode: string;
}

interface Money {
  shopMoney: MoneyV2;
  presentmentMoney: MoneyV2 | null;
}

interface PageInfo {
  hasNextPage: boolean;
  endCursor: string | null;
}

export interface GraphqlLineItem {
  id: string;
  title: string;
  name: string | null;
  quantity: number;
  currentQuantity: number | null;
  sku: string | null;
  variantTitle: string | null;
  isGiftCard: boolean | null;
  originalUnitPriceSet: Money;
  discountAllocations: Array<{ allocatedAmountSet: Money; discountApplication: { code?: string } | null }>;
}

export interface GraphqlTransaction {
  id: string;
  kind: string;
  status: string;
  test: boolean | null;
  processedAt: string | null;
  amountSet: Money;
}

export interface GraphqlRefundLine {
  quantity: number;
  lineItem: { id: string };
  subtotalSet: Money;
  totalTaxSet: Money;
}

interface Connection<T> {
  pageInfo?: PageInfo;
  nodes: T[];
}

export interface GraphqlRefund {
  id: string;
  note: string | null;
  createdAt: string | null;
  transactions: Connection<GraphqlTransaction>;
  refundLineItems: Connection<GraphqlRefundLine>;
  refundShippingLines: Connection<{ subtotalAmountSet: Money }>;
}

export interface GraphqlOrder {
  id: string;
  name: string | null;
  email: string | null;
  test: boolean | null;
  displayFinancialStatus: string | null;
  currencyCode: string | null;
  presentmentCurrencyCode: string | null;
  cancelledAt: string | null;
  cancelReason: string | null;
  totalPriceSet: Money;
  subtotalPriceSet: Money | null;
  totalDiscountsSet: Money | null;
  totalTaxSet: Money | null;
  totalShippingPriceSet: Money | null;
  currentTotalPriceSet: Money | null;
  currentSubtotalPriceSet: Money | null;
  currentTotalDiscountsSet: Money | null;
  currentTotalTaxSet: Money | null;
  currentShippingPriceSet: Money | null;
  discountCodes: string[];
  customAttributes: Array<{ key: string; value: string | null }>;
  customerJourneySummary: { lastVisit: { landingPage: string | null } | null; firstVisit: { landingPage: string | null } | null } | null;
  lineItems: { pageInfo?: PageInfo; nodes: GraphqlLineItem[] };
  refunds: Array<{ id: string }>;
}

interface OrdersPage {
  orders: { pageInfo: PageInfo; nodes: GraphqlOrder[] };
}

/** Statuses of an order that was paid in full (and perhaps refunded since). */
const PAID_STATUSES = new Set(['PAID', 'PARTIALLY_REFUNDED', 'REFUNDED']);

/** Shopify's search syntax: orders changed since the date (a refund changes its order). */
export function ordersSince(since: string): string {
  return `updated_at:>='${since}'`;
}

export async function countOrders(api: AdminApi, since: string): Promise<number | null> {
  try {
    const data = await api.request<{ ordersCount: { count: number } | null }>(ORDERS_COUNT_QUERY, { query: ordersSince(since) });
    return data.ordersCount?.count ?? null;
  } catch {
    return null; // the count only sizes the progress bar
  }
}

/** Paid in full at some point: what orders/paid reports. */
export function wasPaid(order: GraphqlOrder): boolean {
  return order.displayFinancialStatus !== null && PAID_STATUSES.has(order.displayFinancialStatus);
}

/** Every order changed since the date, page by page. */
export async function* ordersChangedSince(api: AdminApi, since: string): AsyncGenerator<GraphqlOrder[]> {
  let after: string | null = null;
  do {
    const page: OrdersPage = await api.request<OrdersPage>(ORDERS_QUERY, { first: ORDERS_PAGE_SIZE, after, query: ordersSince(since) });
    yield page.orders.nodes;
    after = page.orders.pageInfo.hasNextPage ? page.orders.pageInfo.endCursor : null;
  } while (after);
}

/** The order with every line item (the first page came with it). */
export async function withAllLineItems(api: AdminApi, order: GraphqlOrder): Promise<GraphqlOrder> {
  const lines = [...order.lineItems.nodes];
  let after = order.lineItems.pageInfo?.hasNextPage ? order.lineItems.pageInfo.endCursor : null;
  while (after) {
    const data: { order: { lineItems: { pageInfo: PageInfo; nodes: GraphqlLineItem[] } } | null } = await api.request(ORDER_LINE_ITEMS_QUERY, { id: order.id, first: LINES_PAGE_SIZE, after });
    if (!data.order) break;
    lines.push(...data.order.lineItems.nodes);
    after = data.order.lineItems.pageInfo.hasNextPage ? data.order.lineItems.pageInfo.endCursor : null;
  }
  return { ...order, lineItems: { nodes: lines } };
}

/** Every refund of the order, each with all its transactions. */
export async function refundsOf(api: AdminApi, order: GraphqlOrder): Promise<GraphqlRefund[]> {
  let ids = order.refunds;
  if (ids.length >= REFUNDS_WITH_ORDER) {
    const data = await api.request<{ order: { refunds: Array<{ id: string }> } | null }>(ORDER_REFUNDS_QUERY, { id: order.id });
    ids = data.order?.refunds ?? ids;
  }
  const refunds: GraphqlRefund[] = [];
  for (const { id } of ids) {
    const data = await api.request<{ refund: GraphqlRefund | null }>(REFUND_QUERY, { id });
    if (!data.refund) continue;
    refunds.push({
      ...data.refund,
      transactions: await wholeConnection(api, REFUND_TRANSACTIONS_QUERY, id, 'transactions', TRANSACTIONS_PAGE_SIZE, data.refund.transactions),
      refundLineItems: await wholeConnection(api, REFUND_LINES_QUERY, id, 'refundLineItems', REFUND_LINES_PAGE_SIZE, data.refund.refundLineItems),
      refundShippingLines: await wholeConnection(api, REFUND_SHIPPING_QUERY, id, 'refundShippingLines', REFUND_SHIPPING_PAGE_SIZE, data.refund.refundShippingLines),
    });
  }
  return refunds;
}

/** One of a refund's connections whole: the first page came with the refund, the rest page by page. */
async function wholeConnection<K extends 'transactions' | 'refundLineItems' | 'refundShippingLines'>(
  api: AdminApi,
  query: string,
  id: string,
  field: K,
  pageSize: number,
  first: GraphqlRefund[K],
): Promise<GraphqlRefund[K]> {
  const nodes: unknown[] = [...first.nodes];
  let after = first.pageInfo?.hasNextPage ? first.pageInfo.endCursor : null;
  while (after) {
    const data = await api.request<{ refund: Record<K, { pageInfo: PageInfo; nodes: unknown[] }> | null }>(query, { id, first: pageSize, after });
    const page = data.refund?.[field];
    if (!page) break;
    nodes.push(...page.nodes);
    after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
  }
  return { nodes } as GraphqlRefund[K];
}

/** gid://shopify/Order/820982911946154508 → "820982911946154508" (GraphQL ids are strings: no digit is lost). */
export function idFromGid(gid: string): string {
  return gid.slice(gid.lastIndexOf('/') + 1);
}

/** A MoneyBag as the REST bodies carry it (`*_set`). */
function moneySet(money: Money | null): Record<string, unknown> | null {
  if (!money) return null;
  const side = (value: MoneyV2 | null) => (value ? { amount: value.amount, currency_code: value.currencyCode } : null);
  return { shop_money: side(money.shopMoney), presentment_money: side(money.presentmentMoney) };
}

/**
 * A GraphQL order as the orders/paid webhook body would carry it (amounts in the shop's currency,
 * sets in both), with its refunds as the webhook lists them: its current_* amounts are net of those.
 */
export function toWebhookOrder(order: GraphqlOrder, refunds: GraphqlRefund[]): Record<string, unknown> {
  // Summed in the shop currency's minor units (fils for a KWD shop).
  const exponent = moneyExponent(order.currencyCode);
  const codeAmounts = new Map<string, number>();
  const lineItems = order.lineItems.nodes.map((line) => {
    for (const allocation of line.discountAllocations) {
      const code = allocation.discountApplication?.code;
      if (code) codeAmounts.set(code, (codeAmounts.get(code) ?? 0) + minorFromDecimal(allocation.allocatedAmountSet.shopMoney.amount, exponent));
    }
    return {
      id: idFromGid(line.id),
      title: line.title,
      name: line.name,
      quantity: line.quantity,
      current_quantity: line.currentQuantity,
      price: line.originalUnitPriceSet.shopMoney.amount,
      price_set: moneySet(line.originalUnitPriceSet),
      sku: line.sku,
      variant_title: line.variantTitle,
      gift_card: line.isGiftCard ?? false,
      discount_allocations: line.discountAllocations.map((allocation) => ({
        amount: allocation.allocatedAmountSet.shopMoney.amount,
        amount_set: moneySet(allocation.allocatedAmountSet),
      })),
    };
  });
  return {
    id: idFromGid(order.id),
    name: order.name,
    email: order.email,
    customer: null, // reading the customer needs read_customers, which the app does not ask for
    currency: order.currencyCode,
    presentment_currency: order.presentmentCurrencyCode,
    total_price: order.totalPriceSet.shopMoney.amount,
    total_price_set: moneySet(order.totalPriceSet),
    subtotal_price: order.subtotalPriceSet?.shopMoney.amount ?? null,
    subtotal_price_set: moneySet(order.subtotalPriceSet),
    total_discounts: order.totalDiscountsSet?.shopMoney.amount ?? null,
    total_discounts_set: moneySet(order.totalDiscountsSet),
    total_tax: order.totalTaxSet?.shopMoney.amount ?? null,
    total_tax_set: moneySet(order.totalTaxSet),
    total_shipping_price_set: moneySet(order.totalShippingPriceSet),
    current_total_price_set: moneySet(order.currentTotalPriceSet),
    current_subtotal_price_set: moneySet(order.currentSubtotalPriceSet),
    current_total_discounts_set: moneySet(order.currentTotalDiscountsSet),
    current_total_tax_set: moneySet(order.currentTotalTaxSet),
    current_shipping_price_set: moneySet(order.currentShippingPriceSet),
    discount_codes: order.discountCodes.map((code) => ({
      code,
      amount: codeAmounts.has(code) ? decimalFromMinor(codeAmounts.get(code)!, exponent) : null,
    })),
    note_attributes: order.customAttributes.map((attribute) => ({ name: attribute.key, value: attribute.value })),
    landing_site: order.customerJourneySummary?.lastVisit?.landingPage ?? order.customerJourneySummary?.firstVisit?.landingPage ?? null,
    line_items: lineItems,
    refunds: refunds.map((refund) => toWebhookRefund(order, refund)),
    test: order.test ?? false,
    ...cancellationFields(order),
  };
}

/** What orders/cancelled reads: whether the order had been paid, when and why it was cancelled. */
function cancellationFields(order: GraphqlOrder) {
  return {
    financial_status: order.displayFinancialStatus?.toLowerCase() ?? null,
    cancelled_at: order.cancelledAt,
    cancel_reason: order.cancelReason?.toLowerCase() ?? null,
  };
}

/** A cancelled GraphQL order as the orders/cancelled webhook body would carry it (the fields its handler reads). */
export function toWebhookCancellation(order: GraphqlOrder): Record<string, unknown> {
  return { id: idFromGid(order.id), name: order.name, test: order.test ?? false, total_price: order.totalPriceSet.shopMoney.amount, ...cancellationFields(order) };
}

/** REST's transaction statuses: a GraphQL one still awaiting its gateway (or not known yet) is pending. */
function restTransactionStatus(status: string): string {
  const lower = status.toLowerCase();
  return ['success', 'failure', 'error'].includes(lower) ? lower : 'pending';
}

/** One of a GraphQL order's refunds as the refunds/create webhook body would carry it. */
export function toWebhookRefund(order: GraphqlOrder, refund: GraphqlRefund): Record<string, unknown> {
  return {
    id: idFromGid(refund.id),
    order_id: idFromGid(order.id),
    note: refund.note,
    created_at: refund.createdAt,
    refund_line_items: refund.refundLineItems.nodes.map((line) => ({
      line_item_id: idFromGid(line.lineItem.id),
      quantity: line.quantity,
      subtotal_set: moneySet(line.subtotalSet),
      total_tax_set: moneySet(line.totalTaxSet),
    })),
    refund_shipping_lines: refund.refundShippingLines.nodes.map((line) => ({ subtotal_amount_set: moneySet(line.subtotalAmountSet) })),
    transactions: refund.transactions.nodes.map((transaction) => ({
      id: idFromGid(transaction.id),
      order_id: idFromGid(order.id),
      kind: transaction.kind.toLowerCase(),
      status: restTransactionStatus(transaction.status),
      test: transaction.test ?? false,
      // REST transactions carry the buyer's currency in `amount`; the set says both.
      amount: (transaction.amountSet.presentmentMoney ?? transaction.amountSet.shopMoney).amount,
      currency: (transaction.amountSet.presentmentMoney ?? transaction.amountSet.shopMoney).currencyCode,
      amount_set: moneySet(transaction.amountSet),
    })),
  };
}

import { centsFromDecimal, decimalFromCents } from '../../core/money';
import type { AdminApi } from './admin-api';

/**
 * Paid orders and their refunds from the GraphQL Admin API, turned into the REST shapes of the
 * orders/paid and refunds/create webhook bodies, so reconcile feeds them through the same path.
 * Pages stay small: a query's requested cost must stay under Shopify's 1,000-point limit.
 */
export const ORDERS_PAGE_SIZE = 5;

const MONEY = 'shopMoney { amount }';

export const ORDERS_QUERY = `#graphql
  query ReconcileOrders($first: Int!, $after: String, $query: String!) {
    orders(first: $first, after: $after, query: $query, sortKey: UPDATED_AT) {
      pageInfo { hasNextPage endCursor }
      nodes {
        id name email test displayFinancialStatus currencyCode
        customer { firstName lastName defaultEmailAddress { emailAddress } }
        totalPriceSet { ${MONEY} }
        subtotalPriceSet { ${MONEY} }
        totalDiscountsSet { ${MONEY} }
        totalTaxSet { ${MONEY} }
        totalShippingPriceSet { ${MONEY} }
        discountCodes
        customAttributes { key value }
        customerJourneySummary { lastVisit { landingPage } firstVisit { landingPage } }
        lineItems(first: 50) {
          nodes {
            id title quantity sku
            variant { id }
            product { id }
            originalUnitPriceSet { ${MONEY} }
            discountAllocations {
              allocatedAmountSet { ${MONEY} }
              discountApplication { ... on DiscountCodeApplication { code } }
            }
          }
        }
        refunds(first: 5) {
          id note
          transactions(first: 5) { nodes { id kind status amountSet { ${MONEY} } } }
        }
      }
    }
  }`;

export const ORDERS_COUNT_QUERY = `#graphql
  query ReconcileOrdersCount($query: String!) {
    ordersCount(query: $query) { count }
  }`;

interface Money {
  shopMoney: { amount: string };
}

export interface GraphqlOrder {
  id: string;
  name: string | null;
  email: string | null;
  test: boolean | null;
  displayFinancialStatus: string | null;
  currencyCode: string | null;
  customer: { firstName: string | null; lastName: string | null; defaultEmailAddress: { emailAddress: string | null } | null } | null;
  totalPriceSet: Money;
  subtotalPriceSet: Money | null;
  totalDiscountsSet: Money | null;
  totalTaxSet: Money | null;
  totalShippingPriceSet: Money | null;
  discountCodes: string[];
  customAttributes: Array<{ key: string; value: string | null }>;
  customerJourneySummary: { lastVisit: { landingPage: string | null } | null; firstVisit: { landingPage: string | null } | null } | null;
  lineItems: {
    nodes: Array<{
      id: string;
      title: string;
      quantity: number;
      sku: string | null;
      variant: { id: string } | null;
      product: { id: string } | null;
      originalUnitPriceSet: Money;
      discountAllocations: Array<{ allocatedAmountSet: Money; discountApplication: { code?: string } | null }>;
    }>;
  };
  refunds: Array<{
    id: string;
    note: string | null;
    transactions: { nodes: Array<{ id: string; kind: string; status: string; amountSet: Money }> };
  }>;
}

interface OrdersPage {
  orders: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: GraphqlOrder[] };
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

/** gid://shopify/Order/820982911946154508 → "820982911946154508" (GraphQL ids are strings: no digit is lost). */
export function idFromGid(gid: string): string {
  return gid.slice(gid.lastIndexOf('/') + 1);
}

/** A GraphQL order as the orders/paid webhook body would carry it. */
export function toWebhookOrder(order: GraphqlOrder): Record<string, unknown> {
  const codeAmounts = new Map<string, number>();
  const lineItems = order.lineItems.nodes.map((line) => {
    for (const allocation of line.discountAllocations) {
      const code = allocation.discountApplication?.code;
      if (code) codeAmounts.set(code, (codeAmounts.get(code) ?? 0) + centsFromDecimal(allocation.allocatedAmountSet.shopMoney.amount));
    }
    return {
      id: idFromGid(line.id),
      title: line.title,
      quantity: line.quantity,
      price: line.originalUnitPriceSet.shopMoney.amount,
      sku: line.sku,
      variant_id: line.variant ? idFromGid(line.variant.id) : null,
      product_id: line.product ? idFromGid(line.product.id) : null,
      discount_allocations: line.discountAllocations.map((allocation) => ({ amount: allocation.allocatedAmountSet.shopMoney.amount })),
    };
  });
  const customerEmail = order.customer?.defaultEmailAddress?.emailAddress ?? null;
  return {
    id: idFromGid(order.id),
    name: order.name,
    email: order.email,
    customer: order.customer ? { email: customerEmail, first_name: order.customer.firstName, last_name: order.customer.lastName } : null,
    currency: order.currencyCode,
    total_price: order.totalPriceSet.shopMoney.amount,
    subtotal_price: order.subtotalPriceSet?.shopMoney.amount ?? null,
    total_discounts: order.totalDiscountsSet?.shopMoney.amount ?? null,
    total_tax: order.totalTaxSet?.shopMoney.amount ?? null,
    total_shipping_price_set: order.totalShippingPriceSet ? { shop_money: { amount: order.totalShippingPriceSet.shopMoney.amount } } : null,
    discount_codes: order.discountCodes.map((code) => ({
      code,
      amount: codeAmounts.has(code) ? decimalFromCents(codeAmounts.get(code)!) : null,
    })),
    note_attributes: order.customAttributes.map((attribute) => ({ name: attribute.key, value: attribute.value })),
    landing_site: order.customerJourneySummary?.lastVisit?.landingPage ?? order.customerJourneySummary?.firstVisit?.landingPage ?? null,
    line_items: lineItems,
    test: order.test ?? false,
  };
}

/** One of a GraphQL order's refunds as the refunds/create webhook body would carry it. */
export function toWebhookRefund(order: GraphqlOrder, refund: GraphqlOrder['refunds'][number]): Record<string, unknown> {
  return {
    id: idFromGid(refund.id),
    order_id: idFromGid(order.id),
    note: refund.note,
    transactions: refund.transactions.nodes.map((transaction) => ({
      id: idFromGid(transaction.id),
      kind: transaction.kind.toLowerCase(),
      status: transaction.status.toLowerCase(),
      amount: transaction.amountSet.shopMoney.amount,
    })),
  };
}

import * as runtime from '@shopify/shopify-api/runtime';
import type { AdminApi } from './admin-api';
import { type GraphqlLineItem, type GraphqlOrder, LINE_ITEM_FIELDS, ORDER_FIELDS, ordersSince } from './graphql-orders';

/**
 * Large backfills through Shopify's bulk operations: one query for every order since a date,
 * run by Shopify in the background with no cost limit, its result a JSONL file (each line item on
 * a line of its own, pointing at its order with `__parentId`). Refund details are asked for
 * afterwards, per paid order, like the paged path does.
 */
export function bulkOrdersQuery(since: string): string {
  return `{
    orders(query: ${JSON.stringify(ordersSince(since))}, sortKey: UPDATED_AT) {
      edges { node {
        ${ORDER_FIELDS}
        refunds { id }
        lineItems { edges { node { ${LINE_ITEM_FIELDS} } } }
      } }
    }
  }`;
}

export const RUN_BULK_QUERY = `#graphql
  mutation ReconcileBulkOrders($query: String!) {
    bulkOperationRunQuery(query: $query) {
      bulkOperation { id status }
      userErrors { field message }
    }
  }`;

export const BULK_OPERATION = `#graphql
  query ReconcileBulkOperation($id: ID!) {
    bulkOperation(id: $id) { id status errorCode objectCount url partialDataUrl }
  }`;

interface BulkOperation {
  id: string;
  status: string;
  errorCode: string | null;
  objectCount: string | null;
  url: string | null;
}

export interface BulkOptions {
  /** Between two looks at the operation's status. */
  pollMs?: number;
  /** Orders handed on at a time. */
  batchSize?: number;
}

/** Every order changed since the date, by a bulk operation, in batches. */
export async function* bulkOrdersChangedSince(api: AdminApi, since: string, options: BulkOptions = {}): AsyncGenerator<GraphqlOrder[]> {
  const url = await runBulkQuery(api, bulkOrdersQuery(since), options.pollMs ?? 2000);
  const orders = url ? ordersFromJsonl(await download(url)) : [];
  const size = options.batchSize ?? 50;
  for (let start = 0; start < orders.length; start += size) yield orders.slice(start, start + size);
}

/** Starts the operation and waits for it; the result file's URL, or null when nothing matched. */
async function runBulkQuery(api: AdminApi, query: string, pollMs: number): Promise<string | null> {
  const started = await api.request<{ bulkOperationRunQuery: { bulkOperation: { id: string } | null; userErrors: Array<{ message: string }> } }>(RUN_BULK_QUERY, { query });
  const { bulkOperation, userErrors } = started.bulkOperationRunQuery;
  if (!bulkOperation) throw new Error(`Shopify refused the bulk query: ${userErrors.map((error) => error.message).join('; ')}`);
  for (;;) {
    const { bulkOperation: operation } = await api.request<{ bulkOperation: BulkOperation | null }>(BULK_OPERATION, { id: bulkOperation.id });
    if (!operation) throw new Error(`bulk operation ${bulkOperation.id} disappeared`);
    if (operation.status === 'COMPLETED') return operation.url;
    if (!['CREATED', 'RUNNING'].includes(operation.status)) {
      throw new Error(`bulk operation ${operation.id} ended ${operation.status}${operation.errorCode ? ` (${operation.errorCode})` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

async function download(url: string): Promise<string> {
  // Through the library's fetch, like every other call to Shopify.
  const response = await runtime.abstractFetch(url);
  if (!response.ok) throw new Error(`the bulk operation's result could not be downloaded: ${response.status}`);
  return response.text();
}

/** JSONL → orders with their line items (a line item's `__parentId` names its order). */
export function ordersFromJsonl(jsonl: string): GraphqlOrder[] {
  const orders = new Map<string, GraphqlOrder>();
  for (const line of jsonl.split('\n')) {
    if (!line.trim()) continue;
    const object = JSON.parse(line) as Record<string, unknown> & { id: string; __parentId?: string };
    if (object.__parentId) {
      const { __parentId, ...lineItem } = object;
      orders.get(__parentId)?.lineItems.nodes.push(lineItem as unknown as GraphqlLineItem);
    } else {
      orders.set(object.id, { ...(object as unknown as GraphqlOrder), lineItems: { nodes: [] } });
    }
  }
  return [...orders.values()];
}

import { randomBytes } from 'node:crypto';
import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';

export interface RecordedRequest {
  url: string;
  shop: string;
  path: string;
  body: Record<string, any>;
  headers: Record<string, string>;
}

interface Tokens {
  accessToken: string;
  refreshToken: string;
}

/**
 * A stand-in for Shopify behind @shopify/shopify-api's outbound fetch: the OAuth token endpoint
 * (authorization code, refresh, non-expiring → expiring exchange) and the GraphQL Admin API
 * operations the app uses. Everything offline; every request is recorded.
 */
export class FakeShopify {
  readonly requests: RecordedRequest[] = [];
  /** Authorization codes handed out by the consent screen, by shop. */
  readonly codes = new Map<string, string>();
  readonly tokens = new Map<string, Tokens>();
  /** Tokens of merchants' custom apps (`shopify connect`), by shop. */
  readonly customTokens = new Map<string, string>();
  readonly subscriptions = new Map<string, Array<{ id: string; topic: string; uri: string }>>();
  /** GraphQL Order nodes returned by the orders query, by shop. */
  readonly orders = new Map<string, Array<Record<string, any>>>();
  /** Seconds an issued access token lives. */
  accessTokenLifetime = 3600;

  install(): void {
    setAbstractFetchFunc(this.fetch as never);
  }

  /** What the consent screen does: an authorization code for the shop. */
  authorize(shop: string): string {
    const code = randomBytes(8).toString('hex');
    this.codes.set(shop, code);
    return code;
  }

  graphqlCalls(shop: string, operation: string): RecordedRequest[] {
    return this.requests.filter((request) => request.shop === shop && request.path.endsWith('/graphql.json') && operationName(request.body.query) === operation);
  }

  tokenCalls(shop: string): RecordedRequest[] {
    return this.requests.filter((request) => request.shop === shop && request.path === '/admin/oauth/access_token');
  }

  private readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const body = init?.body ? (JSON.parse(String(init.body)) as Record<string, any>) : {};
    const request: RecordedRequest = { url: url.href, shop: url.hostname, path: url.pathname, body, headers };
    this.requests.push(request);
    if (url.pathname === '/admin/oauth/access_token') return this.token(request);
    if (/^\/admin\/api\/[\d-]+\/graphql\.json$/.test(url.pathname)) return this.graphql(request);
    return json(404, { errors: 'Not Found' });
  };

  private issue(shop: string, scope = 'read_orders'): Response {
    const tokens = { accessToken: `shpat_${randomBytes(12).toString('hex')}`, refreshToken: `shprt_${randomBytes(12).toString('hex')}` };
    this.tokens.set(shop, tokens);
    return json(200, {
      access_token: tokens.accessToken,
      scope,
      expires_in: this.accessTokenLifetime,
      refresh_token: tokens.refreshToken,
      refresh_token_expires_in: 7_776_000,
    });
  }

  private token(request: RecordedRequest): Response {
    const { body, shop } = request;
    if (body.grant_type === 'refresh_token') {
      if (this.tokens.get(shop)?.refreshToken !== body.refresh_token) return json(400, { error: 'invalid_grant' });
      return this.issue(shop);
    }
    if (body.grant_type === 'urn:ietf:params:oauth:grant-type:token-exchange') return this.issue(shop);
    if (!body.code || this.codes.get(shop) !== body.code) return json(400, { error: 'invalid_request' });
    this.codes.delete(shop);
    return this.issue(shop);
  }

  private graphql(request: RecordedRequest): Response {
    const { shop, body, headers } = request;
    const token = headers['x-shopify-access-token'];
    if (!token || (token !== this.tokens.get(shop)?.accessToken && token !== this.customTokens.get(shop))) {
      return json(401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
    }
    const variables = body.variables ?? {};
    const subscriptions = this.subscriptions.get(shop) ?? [];
    this.subscriptions.set(shop, subscriptions);
    switch (operationName(body.query)) {
      case 'ConnectedShop':
        return data({ shop: { name: `Shop ${shop}` } });
      case 'ExistingWebhookSubscriptions':
        return data({ webhookSubscriptions: { nodes: subscriptions } });
      case 'CreateWebhookSubscription': {
        const created = { id: `gid://shopify/WebhookSubscription/${subscriptions.length + 1}`, topic: variables.topic, uri: variables.uri };
        subscriptions.push(created);
        return data({ webhookSubscriptionCreate: { webhookSubscription: created, userErrors: [] } });
      }
      case 'ReconcileOrdersCount':
        return data({ ordersCount: { count: (this.orders.get(shop) ?? []).length } });
      case 'ReconcileOrders': {
        const all = this.orders.get(shop) ?? [];
        const start = variables.after ? Number(variables.after) : 0;
        const nodes = all.slice(start, start + variables.first);
        const end = start + nodes.length;
        return data({ orders: { pageInfo: { hasNextPage: end < all.length, endCursor: String(end) }, nodes } });
      }
      default:
        return json(200, { errors: [{ message: `unexpected operation ${operationName(body.query)}` }] });
    }
  }
}

function operationName(query: unknown): string | null {
  return /(?:query|mutation)\s+(\w+)/.exec(String(query ?? ''))?.[1] ?? null;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

function data(payload: unknown): Response {
  return json(200, { data: payload, extensions: { cost: { requestedQueryCost: 1, actualQueryCost: 1 } } });
}

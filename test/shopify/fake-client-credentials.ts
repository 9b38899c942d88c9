import { randomBytes } from 'node:crypto';
import * as runtime from '@shopify/shopify-api/runtime';
import type { FakeShopify } from './fake-shopify';

interface DevDashboardApp {
  clientId: string;
  clientSecret: string;
}

/**
 * Shopify's token endpoint for the client-credentials grant (Dev Dashboard apps installed on a
 * shop), in front of the fake Admin API: every grant request is recorded; a granted token is the
 * one the fake Admin API accepts for the shop. Other requests go on to `admin`.
 */
export class FakeClientCredentials {
  /** Client-credentials grant requests, by shop (the count the renewal tests check). */
  readonly grants = new Map<string, Array<Record<string, unknown>>>();
  readonly apps = new Map<string, DevDashboardApp>();
  /** What Shopify answers today: 24 hours less a second. */
  tokenLifetimeSeconds = 86_399;
  /** How long the endpoint takes to answer (a wider window for racing renewals). */
  delayMs = 0;

  constructor(private readonly admin: FakeShopify) {}

  /** Wraps the fetch installed now (the fake Admin API's). */
  install(): void {
    const next = runtime.abstractFetch;
    runtime.setAbstractFetchFunc((async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      const body = init?.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : {};
      if (url.pathname !== '/admin/oauth/access_token' || body.grant_type !== 'client_credentials') return next(input as never, init as never);
      return this.grant(url.hostname, body);
    }) as never);
  }

  /** A Dev Dashboard app installed on the shop, with its client credentials. */
  createApp(shop: string): DevDashboardApp {
    const app = { clientId: randomBytes(16).toString('hex'), clientSecret: `shpss_${randomBytes(16).toString('hex')}` };
    this.apps.set(shop, app);
    return app;
  }

  grantCount(shop: string): number {
    return this.grants.get(shop)?.length ?? 0;
  }

  private async grant(shop: string, body: Record<string, unknown>): Promise<Response> {
    this.grants.set(shop, [...(this.grants.get(shop) ?? []), body]);
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const app = this.apps.get(shop);
    if (!app || body.client_id !== app.clientId || body.client_secret !== app.clientSecret) {
      return json(400, { error: 'invalid_client', error_description: 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.' });
    }
    const token = `shpat_${randomBytes(16).toString('hex')}`;
    this.admin.customTokens.set(shop, token);
    return json(200, { access_token: token, scope: 'read_orders', expires_in: this.tokenLifetimeSeconds });
  }
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

import type { Database } from '../core/db/create-database';
import type { BenchTenant } from './bench-database';
import type { ScenarioRequest } from './load-scenario';
import { routeExists } from './route-probe';

export type ShopifyScenario =
  | { ready: true; path: string; expectedStatus: number; nextRequest: () => ScenarioRequest }
  | { ready: false; reason: string };

const WEBHOOK_PATHS = ['/shopify/webhooks', '/webhooks/shopify'];

/** orders/paid deliveries, signed as Shopify signs them, once the Shopify connector exists. */
export async function shopifyOrdersPaid(baseUrl: string, _db: Database, _tenant: BenchTenant): Promise<ShopifyScenario> {
  for (const path of WEBHOOK_PATHS) {
    if (await routeExists(baseUrl, path)) return { ready: false, reason: `route ${path} present but not wired into the bench yet` };
  }
  return { ready: false, reason: 'route not present' };
}

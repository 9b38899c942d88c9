import { randomUUID } from 'node:crypto';
import { connectCustomApp } from '../connectors/shopify/install-shop';
import { WEBHOOK_PATH } from '../connectors/shopify/shopify-config';
import { webhookSignature } from '../connectors/shopify/verify-webhook';
import type { Database } from '../core/db/create-database';
import { inTransaction } from '../core/db/transaction';
import { BENCH_KEY_SECRET, type BenchTenant } from './bench-database';
import type { Scenario, ScenarioRequest, ScenarioResult } from './load-scenario';
import { routeExists } from './route-probe';

export type ShopifyScenario =
  | { ready: true; path: string; expectedStatus: number; nextRequest: () => ScenarioRequest }
  | { ready: false; reason: string };

const SHOP = 'bench-store.myshopify.com';
const APP_SECRET = 'bench-custom-app-secret';

/**
 * orders/paid deliveries as Shopify sends them — signed, each with its own X-Shopify-Webhook-Id —
 * to a shop connected to the bench brand as a custom app. What is measured is the acknowledgement;
 * the inbox worker records the conversions in the background.
 */
export async function shopifyOrdersPaid(baseUrl: string, db: Database, tenant: BenchTenant): Promise<ShopifyScenario> {
  if (!(await routeExists(baseUrl, WEBHOOK_PATH))) return { ready: false, reason: 'route not present' };
  await inTransaction(db, (trx) =>
    connectCustomApp(trx, { brandId: tenant.brandId, shop: SHOP, accessToken: 'shpat_bench', apiSecret: APP_SECRET, encryptionSecret: BENCH_KEY_SECRET, currency: 'USD', actor: 'bench' }),
  );
  let sequence = 0;
  const runId = Date.now();
  return {
    ready: true,
    path: WEBHOOK_PATH,
    expectedStatus: 200,
    nextRequest: () => {
      sequence += 1;
      const body = JSON.stringify(paidOrder(runId * 1000 + sequence, tenant.codes[sequence % tenant.codes.length]!));
      return {
        body,
        headers: {
          'x-shopify-topic': 'orders/paid',
          'x-shopify-shop-domain': SHOP,
          'x-shopify-webhook-id': randomUUID(),
          'x-shopify-api-version': '2025-10',
          'x-shopify-hmac-sha256': webhookSignature(APP_SECRET, body),
        },
      };
    },
  };
}

/** The fields of a real orders/paid body that matter, three line items, the code as a cart attribute. */
function paidOrder(id: number, code: string) {
  const email = `shopper${id}@shop.example`;
  const line = (n: number, title: string, price: string, quantity: number) => ({
    id: id * 10 + n, title, name: title, quantity, price, sku: `SKU-${n}`, product_id: 7000 + n, variant_id: 8000 + n,
  });
  return {
    id,
    name: `#${id}`,
    email,
    currency: 'USD',
    total_price: '120.00',
    subtotal_price: '120.00',
    total_discounts: '0.00',
    total_tax: '0.00',
    customer: { email, first_name: 'Sam', last_name: 'Shopper' },
    note_attributes: [{ name: 'ref', value: code }],
    line_items: [line(1, 'Organic cotton tee', '25.00', 2), line(2, 'Stoneware mug', '30.00', 1), line(3, 'Canvas cap', '40.00', 1)],
    test: false,
  };
}

/** Waits until the inbox worker has processed every delivery (so later scenarios run on a quiet server). */
export async function waitForInbox(db: Database, brandId: string, timeoutMs = 120_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    const row = await db('shopify_inbox').where({ brand_id: brandId, status: 'pending' }).count({ total: '*' }).first();
    if (Number(row?.total ?? 0) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return (Date.now() - started) / 1000;
}

/** How the inbox worker disposed of the bench's deliveries, by outcome. */
export async function inboxOutcomes(db: Database, brandId: string): Promise<Record<string, number>> {
  const rows: Array<{ status: string; outcome: string | null; total: string }> = await db('shopify_inbox')
    .select('status', 'outcome')
    .count({ total: '*' })
    .where({ brand_id: brandId })
    .groupBy('status', 'outcome');
  return Object.fromEntries(rows.map((row) => [`${row.status}${row.outcome ? `: ${row.outcome}` : ''}`, Number(row.total)]));
}

export interface BurstResult {
  acknowledged: ScenarioResult;
  /** From the first request until the inbox held nothing pending. */
  recordedSeconds: number;
  outcomes: Record<string, number>;
}

/** Sends the burst (`planned`, through `run`), then waits until the inbox worker has recorded all of it. */
export async function recordBurst(run: (planned: Scenario) => Promise<ScenarioResult>, planned: Scenario, db: Database, brandId: string, timeoutMs: number): Promise<BurstResult> {
  const started = Date.now();
  const acknowledged = await run(planned);
  // The acknowledgement is what Shopify waits for; the inbox worker records the orders after it.
  await waitForInbox(db, brandId, timeoutMs);
  return { acknowledged, recordedSeconds: (Date.now() - started) / 1000, outcomes: await inboxOutcomes(db, brandId) };
}

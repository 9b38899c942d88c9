import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { LosslessNumber, parse, stringify } from 'lossless-json';
import { updateBrand, type Plan } from '../../core/brands/brand';
import { runCli } from '../../server/cli/run-cli';
import { givenBrand } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';
import { adminSchemaSubsetSettled } from './admin-schema';
import { FakeShopify } from './fake-shopify';

export const SHOPIFY_API_KEY = 'test-shopify-client-id';
export const SHOPIFY_API_SECRET = 'test-shopify-client-secret';
export const SHOPIFY_APP_URL = 'https://referrals.example.com';
/** The library refuses bots during OAuth, and Node's default User-Agent looks like one. */
export const BROWSER_USER_AGENT =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

function setShopifyEnv(): void {
  process.env.SHOPIFY_API_KEY = SHOPIFY_API_KEY;
  process.env.SHOPIFY_API_SECRET = SHOPIFY_API_SECRET;
  process.env.SHOPIFY_APP_URL = SHOPIFY_APP_URL;
  process.env.SHOPIFY_SCOPES = 'read_orders,write_discounts';
  delete process.env.SHOPIFY_DEFAULT_PLAN;
}

/**
 * The public app's settings, as a deployment sets them: now, and again before the file's tests,
 * since the files of a suite share one process (another may have changed them meanwhile).
 */
export function useShopifyEnv(): void {
  setShopifyEnv();
  beforeAll(setShopifyEnv);
}

/**
 * A fake Shopify receiving every outbound call of the library. The library's fetch is one per
 * process: the file's fake takes it before the file's tests, after any earlier file's.
 */
export function useFakeShopify(): FakeShopify {
  const fake = new FakeShopify();
  fake.install();
  beforeAll(() => adminSchemaSubsetSettled());
  beforeAll(() => fake.install());
  return fake;
}

export interface ShopifyTestContext {
  fake: FakeShopify;
  /** Set once the file's beforeAll ran. */
  app: TestApp;
}

/** A test file's setup: the app's env, a fake Shopify, the app on the test database. */
export function setUpShopifyTests(): ShopifyTestContext {
  useShopifyEnv();
  const context = { fake: useFakeShopify() } as ShopifyTestContext;
  beforeAll(async () => {
    context.app = await startTestApp();
  });
  return context;
}

/** Runs a `referrals` command line against the test app's database; progress lines are collected. */
export async function referrals(app: TestApp, argv: string[], options: { tty?: boolean } = {}) {
  const progress: string[] = [];
  const output = await runCli(argv, { db: app.db, config: app.config, isTTY: options.tty ?? false, progress: (line) => progress.push(line) });
  return { ...output, progress };
}

const FIXTURES = path.join(__dirname, '../fixtures/shopify');

/** A fixture payload exactly as published (bytes as they are). */
export function fixtureText(name: string): string {
  return fs.readFileSync(path.join(FIXTURES, name), 'utf8');
}

export function uniqueShop(): string {
  return `shop-${randomBytes(5).toString('hex')}.myshopify.com`;
}

/** What Shopify's redirect back to the app carries, signed as Shopify signs it. */
export function signedCallbackQuery(shop: string, code: string, state: string, secret = SHOPIFY_API_SECRET): string {
  return signedQuery({ code, host: shopHost(shop), shop, state, timestamp: String(Math.floor(Date.now() / 1000)) }, secret);
}

/** The install link Shopify opens (GET /shopify/auth?…), signed as Shopify signs it; `extra` adds e.g. embedded=1 and id_token. */
export function signedInstallQuery(shop: string, options: { secret?: string; timestamp?: number; extra?: Record<string, string> } = {}): string {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  return signedQuery({ host: shopHost(shop), shop, timestamp, ...options.extra }, options.secret ?? SHOPIFY_API_SECRET);
}

function shopHost(shop: string): string {
  return Buffer.from(`admin.shopify.com/store/${shop.split('.')[0]}`).toString('base64url');
}

/** Shopify's query signature: hex HMAC-SHA256 of the sorted query without hmac, appended as `hmac`. */
function signedQuery(params: Record<string, string>, secret: string): string {
  const sorted = new URLSearchParams();
  for (const key of Object.keys(params).sort((a, b) => a.localeCompare(b))) sorted.append(key, params[key]!);
  const message = sorted.toString().replace(/\+/g, '%20');
  sorted.append('hmac', createHmac('sha256', secret).update(message).digest('hex'));
  return sorted.toString();
}

export interface Installed {
  shop: string;
  brandId: string;
  apiKey: string | null;
  page: string;
}

/** The whole install: /shopify/auth → Shopify's consent → /shopify/auth/callback. */
export async function installApp(app: TestApp, fake: FakeShopify, shop = uniqueShop(), plan?: Plan, currency?: string): Promise<Installed> {
  if (currency) fake.currencies.set(shop, currency);
  const begin = await app.http.get(`/shopify/auth?${signedInstallQuery(shop)}`).set('User-Agent', BROWSER_USER_AGENT);
  if (begin.status !== 302) throw new Error(`install did not redirect: ${begin.status} ${JSON.stringify(begin.body)}`);
  const location = new URL(begin.headers.location!);
  const cookies = ([] as string[]).concat(begin.headers['set-cookie'] ?? []).map((cookie) => cookie.split(';')[0]!);
  const state = location.searchParams.get('state')!;
  const callback = await app.http
    .get(`/shopify/auth/callback?${signedCallbackQuery(shop, fake.authorize(shop), state)}`)
    .set('User-Agent', BROWSER_USER_AGENT)
    .set('Cookie', cookies.join('; '));
  if (callback.status !== 200) throw new Error(`install callback failed: ${callback.status} ${JSON.stringify(callback.body)}`);
  const page = callback.text;
  const brandId = /id="brand-id">([^<]+)</.exec(page)![1]!;
  const apiKey = /id="api-key">([^<]+)</.exec(page)?.[1] ?? null;
  if (plan) await updateBrand(app.db, brandId, { plan });
  return { shop, brandId, apiKey, page };
}

export interface WebhookOptions {
  topic: string;
  shop: string;
  webhookId?: string;
  secret?: string;
  hmac?: string | null;
  triggeredAt?: string;
}

/** Posts a webhook exactly as Shopify does: HMAC over the raw bytes, base64, with its headers. */
export function sendWebhook(app: TestApp, body: string, options: WebhookOptions) {
  const request = app.http
    .post('/shopify/webhooks')
    .set('Content-Type', 'application/json')
    .set('X-Shopify-Topic', options.topic)
    .set('X-Shopify-Shop-Domain', options.shop)
    .set('X-Shopify-API-Version', '2026-10')
    .set('X-Shopify-Webhook-Id', options.webhookId ?? randomUUID())
    .set('X-Shopify-Triggered-At', options.triggeredAt ?? new Date().toISOString());
  const hmac = options.hmac === undefined ? createHmac('sha256', options.secret ?? SHOPIFY_API_SECRET).update(body, 'utf8').digest('base64') : options.hmac;
  if (hmac !== null) request.set('X-Shopify-Hmac-Sha256', hmac);
  return request.send(body);
}

/**
 * A variant of a fixture: parsed without losing a digit (numbers stay their exact text), changed,
 * and written back as JSON. `exactNumber('820982911946154508')` writes a number as those digits.
 */
export function variant(text: string, change: (payload: any) => void): string {
  const payload = parse(text);
  change(payload);
  return stringify(payload)!;
}

export function exactNumber(digits: string): LosslessNumber {
  return new LosslessNumber(digits);
}

export async function inboxRow(db: Knex, brandId: string, webhookId: string): Promise<Record<string, any> | undefined> {
  return db('shopify_inbox').where({ brand_id: brandId, webhook_id: webhookId }).first();
}

/** A Premier brand with `settings`, connected to a fresh shop through a custom app granted `scopes` (`shopify connect`). */
export async function connectedBrand(context: ShopifyTestContext, settings: object, scopes = ['read_orders', 'write_discounts']) {
  const brand = await givenBrand(context.app.db, { plan: 'premier', ...settings });
  const shop = uniqueShop();
  context.fake.customTokens.set(shop, `shpat_${shop}`);
  context.fake.scopes.set(shop, scopes);
  const run = await referrals(context.app, ['shopify', 'connect', '--brand', brand.brandId, '--shop', shop, '--access-token', `shpat_${shop}`, '--api-secret', 'custom-secret', '--app-url', 'https://referrals.example.com', '--json']);
  if (run.code !== 0) throw new Error(`shopify connect failed: ${run.stderr}`);
  return { brand, shop };
}

/** A refunds/create body (the published sample) refunding `amount` of the order in one successful transaction. */
export function refundOf(orderId: string, refundId: string, amount: string): string {
  return variant(fixtureText('refunds-create.webhook-sample.json'), (refund) => {
    refund.id = exactNumber(refundId);
    refund.order_id = exactNumber(orderId);
    refund.transactions = [{ id: Number(refundId.slice(-6)), kind: 'refund', status: 'success', amount, currency: 'USD', gateway: 'bogus' }];
  });
}

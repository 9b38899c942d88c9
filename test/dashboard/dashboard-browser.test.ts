/// <reference lib="dom" />
// page.evaluate callbacks run in the browser: their code sees the DOM.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { configureConnectors } from '../../server/connectors';
import { givenAdvocate, givenBrand } from '../helpers/fixtures';
import { shopifySessionToken } from '../helpers/shopify-session-token';
import { type TestApp, startTestApp } from '../helpers/test-app';
import { signInLink } from './dashboard-helpers';
import { FULL_CHROMIUM, cell, describeInBrowser, describeInFullChromium, launchBrowser, shot, signIn as signInAs } from './dashboard-browser-kit';


const SHOPIFY = { SHOPIFY_API_KEY: 'browser-test-key', SHOPIFY_API_SECRET: 'browser-test-secret', SHOPIFY_APP_URL: 'https://referrals.example.com' };
const DAY = 86_400_000;

let t: TestApp;
let server: http.Server;
let origin: string;
let browser: Browser;
let brandId: string;
let shop: string;

/** Sends a request to the API as the brand's integration would, and expects it accepted. */
async function api(headers: Record<string, string>, endpoint: string, body: object, status = 201) {
  const response = await t.http.post(`/api/v1/track/${endpoint}`).set(headers).send(body);
  expect([endpoint, response.status]).toEqual([endpoint, status]);
  return response.body;
}

/**
 * A brand's month, all through the HTTP API: three visits, two claims, three paid orders with
 * product lines (one SKU sold under two names, one product without a SKU) and a partial refund.
 */
async function givenAMonthOfReferrals(): Promise<void> {
  const brand = await givenBrand(t.db, { name: 'Northwind Outfitters', plan: 'premier', reward_type: 'percentage', reward_value: 10, referee_discount_value: 15, reward_hold_days: 0 });
  brandId = brand.brandId;
  const ann = await givenAdvocate(t.db, brandId, { first_name: 'Ann', email: 'ann@northwind.example', code: 'ANN10' });
  const ben = await givenAdvocate(t.db, brandId, { first_name: 'Ben', email: 'ben@northwind.example', code: 'BEN20' });
  await givenAdvocate(t.db, brandId, { first_name: '<script>alert("x")</script>', email: 'mallory@northwind.example', code: 'HOSTILE' });
  await api(brand.headers, 'visit', { referral_code: ann.code, utm_source: 'instagram' }, 200);
  await api(brand.headers, 'visit', { referral_code: ann.code, utm_source: 'email' }, 200);
  await api(brand.headers, 'visit', { referral_code: ben.code, utm_source: 'sms' }, 200);
  await api(brand.headers, 'claim', { referral_code: ann.code, email: 'bob@example.com', name: 'Bob', raw_value: 100 });
  await api(brand.headers, 'claim', { referral_code: ben.code, email: 'carol@example.com', name: 'Carol', raw_value: 60 });
  await api(brand.headers, 'conversion', {
    email: 'bob@example.com', order_id: 'NW-1001', order_value: 120, referral_code: ann.code,
    products: [{ title: 'Trail Tee', qty: 2, price: 30, sku: 'TEE-1' }, { title: 'Water Bottle', qty: 1, price: 60, sku: 'BTL-1' }],
  });
  await api(brand.headers, 'conversion', {
    email: 'carol@example.com', order_id: 'NW-1002', order_value: 80, referral_code: ben.code,
    products: [{ title: 'Trail T-shirt', qty: 1, price: 30, sku: 'TEE-1' }, { title: 'Wool Socks', qty: 2, price: 25 }],
  });
  await api(brand.headers, 'conversion', {
    email: 'dave@example.com', order_id: 'NW-1003', order_value: 45.5, referral_code: ann.code,
    products: [{ title: 'Wool Socks', qty: 1, price: 45.5 }],
  });
  const refund = await api(brand.headers, 'refund', { order_id: 'NW-1002', refund_amount: 20, is_full_refund: false, refund_id: 'NW-R1' }, 200);
  expect(refund.data.reward_reversed).toBe(2);
  // The API stamps every record now; two orders are moved back a few days so the chart has a shape.
  await t.db('conversions').where({ brand_id: brandId, order_id: 'NW-1001' }).update({ created_at: new Date(Date.now() - 5 * DAY) });
  await t.db('conversions').where({ brand_id: brandId, order_id: 'NW-1002' }).update({ created_at: new Date(Date.now() - 2 * DAY) });
  shop = `northwind-${brandId.slice(0, 6)}.myshopify.com`;
  await t.db('shopify_shops').insert({ brand_id: brandId, shop_domain: shop, app_kind: 'public', status: 'installed', scopes: 'read_orders' });
}

const signIn = (page: Page) => signInAs(page, t.db, brandId, origin);


describeInBrowser('the dashboard in a real browser (Chromium)', () => {
  beforeAll(async () => {
    t = await startTestApp({}, undefined, configureConnectors({ ...SHOPIFY }));
    server = http.createServer(t.app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    await givenAMonthOfReferrals();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('signs in through the one-time link and shows the totals the API recorded, with a chart', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page);
    expect(await page.locator('h1').innerText()).toBe('Overview');
    expect(await cell(page, 'conversions')).toBe('3');
    expect(await cell(page, 'revenue')).toBe('245.50 USD');
    expect(await cell(page, 'refunded')).toBe('20.00 USD');
    expect(await cell(page, 'refund-rate')).toBe('8.15 %');
    expect(await cell(page, 'rewards-earned')).toBe('24.55 USD');
    expect(await cell(page, 'rewards-reversed')).toBe('2.00 USD');
    expect(await cell(page, 'rewards-redeemed')).toBe('0.00 USD');
    expect(await page.locator('.settings').first().innerText()).toContain('10 % of the order value');
    await page.locator('.uplot canvas').first().waitFor();
    await shot(page, 'overview-desktop');
    await page.close();
  });

  it('is keyboard-usable: skip link, then the navigation to Advocates, search, and one advocate\'s history', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Advocates');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${origin}/dashboard/advocates`);
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(3);
    // The hostile name is text on the page, and no dialog ever opened.
    let dialogs = 0;
    page.on('dialog', () => { dialogs += 1; });
    expect(await page.getByRole('link', { name: '<script>alert("x")</script>' }).count()).toBe(1);
    expect(await rows.nth(0).innerText()).toBe('Ann\tann@northwind.example\tANN10\t2\t165.50\t16.55\t0.00\t0.00');
    expect(await rows.nth(1).innerText()).toBe('Ben\tben@northwind.example\tBEN20\t1\t80.00\t6.00\t0.00\t0.00');
    await shot(page, 'advocates-desktop');

    await page.getByLabel('Search by email, name or code').focus();
    await page.keyboard.type('ben');
    await page.keyboard.press('Enter');
    await page.waitForURL(/q=ben/);
    expect(await page.locator('tbody tr').count()).toBe(1);
    await page.getByRole('link', { name: 'Ben' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/dashboard\/advocates\/\d+$/);
    expect(await cell(page, 'credited')).toBe('8.00 USD');
    expect(await cell(page, 'reversed')).toBe('2.00 USD');
    expect(await cell(page, 'balance')).toBe('6.00 USD');
    expect(await page.locator('tbody tr').first().innerText()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\tRefund after approval\t-2\.00\tapproved\tNW-1002\t80\.00 USD\tpartly refunded$/);
    await shot(page, 'advocate-history-desktop');
    expect(dialogs).toBe(0);
    await page.close();
  });

  it('filters the activity feed by kind, and downloads it and the product table as CSV', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    await signIn(page);
    await page.getByRole('link', { name: 'Activity' }).click();
    expect(await page.locator('tbody tr').count()).toBe(9);
    await shot(page, 'activity-desktop');
    for (const kind of ['Visits', 'Claims', 'Conversions']) await page.getByLabel(kind).uncheck();
    await page.getByRole('button', { name: 'Show' }).press('Enter');
    await page.waitForURL(/kind=refund/);
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().innerText()).toMatch(/\tRefund\tBEN20\tcarol@example.com\tNW-1002\t20\.00 USD\tpartly refunded$/);

    await page.getByRole('link', { name: 'Revenue by product' }).click();
    await page.locator('.uplot canvas').first().waitFor();
    expect(await page.locator('.table-scroll tbody tr').allInnerTexts()).toEqual([
      'Wool Socks\t\tWool Socks\t2\t3\t95.50',
      'TEE-1\tTEE-1\tTrail T-shirt · Trail Tee\t2\t3\t90.00',
      'BTL-1\tBTL-1\tWater Bottle\t1\t1\t60.00',
    ]);
    await shot(page, 'products-desktop');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download this table (CSV)' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^products-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(fs.readFileSync((await download.path())!, 'utf8')).toBe(
      'product,sku,names,orders,quantity,revenue,currency\r\nWool Socks,,Wool Socks,2,3,95.50,USD\r\nTEE-1,TEE-1,Trail T-shirt | Trail Tee,2,3,90.00,USD\r\nBTL-1,BTL-1,Water Bottle,1,1,60.00,USD\r\n',
    );
    await page.close();
  });

  it('shows the Shopify connection and the outbound-webhooks section on Connections', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page);
    await page.getByRole('link', { name: 'Connections' }).click();
    expect(await page.getByRole('heading', { name: 'Shopify' }).count()).toBe(1);
    expect(await page.locator('main').innerText()).toContain(`${shop}: installed (public app)`);
    expect(await page.getByRole('heading', { name: 'Outbound webhooks' }).count()).toBe(1);
    await shot(page, 'connections-desktop');
    await page.close();
  });

  it('refuses a forged logout POST (no CSRF token) with 403 and keeps the session; signs out with the real form', async () => {
    const page = await browser.newPage();
    await signIn(page);
    // What a forged form would send: the session cookie rides along, the token cannot.
    await page.evaluate(() => {
      const form = document.createElement('form');
      form.method = 'post';
      form.action = '/dashboard/logout';
      document.body.append(form);
      form.submit();
    });
    await page.waitForURL(`${origin}/dashboard/logout`);
    expect(await page.locator('main').innerText()).toContain('CSRF token is missing or wrong');
    await page.goto(`${origin}/dashboard`);
    expect(await page.locator('h1').innerText()).toBe('Overview');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${origin}/dashboard/sign-in?signed_out=1`);
    const after = await page.goto(`${origin}/dashboard`);
    expect(after!.status()).toBe(401);
    await page.close();
  });

  it('refuses a used link and an expired one with a clear page', async () => {
    const page = await browser.newPage();
    const { url } = await signInLink(t.db, brandId, origin);
    await page.goto(url.toString());
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${origin}/dashboard`);
    const reused = await page.goto(url.toString());
    expect(reused!.status()).toBe(403);
    expect(await page.locator('main').innerText()).toContain('This sign-in link was already used');
    await shot(page, 'used-link');

    const stale = await signInLink(t.db, brandId, origin);
    await t.db('dashboard_login_links').where({ brand_id: brandId }).whereNull('used_at').update({ expires_at: new Date(Date.now() - 60_000) });
    const expired = await page.goto(stale.url.toString());
    expect(expired!.status()).toBe(403);
    expect(await page.locator('main').innerText()).toContain('This sign-in link expired');
    await page.close();
  });

  it('opens inside the Shopify admin with a session token, follows links with a fresh one, and refuses a bad one', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const token = () => shopifySessionToken({ shop, apiKey: SHOPIFY.SHOPIFY_API_KEY, apiSecret: SHOPIFY.SHOPIFY_API_SECRET });
    // Shopify's App Bridge comes from its CDN, which this test cannot reach: a stand-in hands out tokens the same way.
    let tokensHanded = 0;
    await context.exposeFunction('freshSessionToken', () => {
      tokensHanded += 1;
      return token();
    });
    await context.route('https://cdn.shopify.com/**', (route) =>
      route.fulfill({ contentType: 'text/javascript', body: 'window.shopify = { idToken: () => window.freshSessionToken() };' }),
    );
    const page = await context.newPage();
    const opened = await page.goto(`${origin}/dashboard?embedded=1&shop=${shop}&host=YWRtaW4&id_token=${token()}`);
    expect(opened!.status()).toBe(200);
    expect(opened!.headers()['content-security-policy']).toContain(`frame-ancestors https://${shop} https://admin.shopify.com`);
    expect(await page.locator('.via').innerText()).toBe(`Signed in through ${shop}`);
    expect(await cell(page, 'revenue')).toBe('245.50 USD');
    expect((await context.cookies()).length).toBe(0);
    await shot(page, 'embedded-overview');
    await page.getByRole('link', { name: 'Advocates' }).click();
    await page.waitForURL(/\/dashboard\/advocates\?.*id_token=/);
    expect(tokensHanded).toBe(1);
    expect(await page.locator('h1').innerText()).toBe('Advocates');
    expect(new URL(page.url()).searchParams.get('shop')).toBe(shop);

    const forged = shopifySessionToken({ shop, apiKey: SHOPIFY.SHOPIFY_API_KEY, apiSecret: 'wrong-secret' });
    const refused = await page.goto(`${origin}/dashboard?embedded=1&shop=${shop}&id_token=${forged}`);
    expect(refused!.status()).toBe(401);
    expect(await page.locator('main').innerText()).toContain('the Shopify session token was refused');
    await context.close();
  });

  it('reads on a phone: nothing wider than the screen but the scrolling tables', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    await signIn(page);
    await page.locator('.uplot canvas').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await cell(page, 'revenue')).toBe('245.50 USD');
    await shot(page, 'overview-phone');
    await page.getByRole('link', { name: 'Advocates' }).click();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, 'advocates-phone');
    await page.close();
  });

  describeInFullChromium('in Debian\'s full Chromium, the browser merchants use', () => {
    it('signs in and shows the totals with a drawn chart', async () => {
      const full = await launchBrowser(FULL_CHROMIUM);
      try {
        const page = await full.newPage({ viewport: { width: 1280, height: 900 } });
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        await signIn(page);
        expect(await cell(page, 'conversions')).toBe('3');
        expect(await cell(page, 'revenue')).toBe('245.50 USD');
        const canvas = page.locator('.uplot canvas').first();
        await canvas.waitFor();
        // Drawn, not only placed: some pixel of the chart is not transparent.
        expect(await canvas.evaluate((element) => {
          const chart = element as HTMLCanvasElement;
          const pixels = chart.getContext('2d')!.getImageData(0, 0, chart.width, chart.height).data;
          return pixels.some((value, index) => index % 4 === 3 && value > 0);
        })).toBe(true);
        expect(errors).toEqual([]);
        await shot(page, 'overview-full-chromium');
      } finally {
        await full.close();
      }
    });
  });
});

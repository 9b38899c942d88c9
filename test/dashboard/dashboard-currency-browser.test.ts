/// <reference lib="dom" />
// page.evaluate callbacks run in the browser: their code sees the DOM.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { approveDueRewards } from '../../core/rewards/reward-transitions';
import { type TestBrand, givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';
import { cell, describeInBrowser, launchBrowser, shot, signIn as signInAs } from './dashboard-browser-kit';

// The reports in the brand's currency, in a real browser (Debian's Chromium, driven by playwright-core).

let t: TestApp;
let server: http.Server;
let origin: string;
let browser: Browser;

async function order(brand: TestBrand, body: Record<string, unknown>): Promise<string> {
  const orderId = uniqueOrderId();
  const response = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: `buyer-${orderId}@example.com`, order_id: orderId, ...body });
  expect(response.status).toBe(201);
  return orderId;
}

const signIn = (page: Page, brandId: string) => signInAs(page, t.db, brandId, origin);


describeInBrowser('the dashboard in the brand\'s currency, in a real browser (Chromium)', () => {
  beforeAll(async () => {
    t = await startTestApp();
    server = http.createServer(t.app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('shows a JPY brand in whole yen: revenue, rewards held and approved, the daily table and the program\'s fixed amounts', async () => {
    const brand = await givenBrand(t.db, { name: 'Kyoto Goods', currency: 'JPY', reward_type: 'percentage', reward_value: 10, referee_discount_type: 'fixed', referee_discount_value: 500, fraud_velocity: false });
    const advocate = await givenAdvocate(t.db, brand.brandId, { first_name: 'Yui', email: 'yui@example.jp' });
    await order(brand, { order_value: 12800, referral_code: advocate.code, products: [{ title: 'Furoshiki', qty: 2, price: 6400, sku: 'FRO-1' }] });
    await order(brand, { order_value: 999, referral_code: advocate.code });
    // The first reward's hold ends and the approval job approves it: 1,280 yen approved, 100 yen still held.
    await t.db('rewards').where({ brand_id: brand.brandId, amount: '1280' }).update({ hold_until: t.db.raw(`now() - interval '1 second'`) });
    await approveDueRewards(t.db);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page, brand.brandId);
    expect(await cell(page, 'revenue')).toBe('13,799 JPY');
    expect(await cell(page, 'rewards-earned')).toBe('1,380 JPY');
    expect(await cell(page, 'rewards-approved')).toBe('1,280 JPY');
    expect(await cell(page, 'rewards-held')).toBe('100 JPY');
    expect(await cell(page, 'rewards-held-count')).toBe('1');
    expect(await page.locator('.settings').first().innerText()).toContain('500 JPY');
    expect((await page.locator('.table-scroll thead').innerText()).trim()).toBe('Day\tConversions\tRevenue (JPY)\tRefunded (JPY)');
    expect(await page.locator('.table-scroll tbody tr').first().innerText()).toBe(`${new Date().toISOString().slice(0, 10)}\t2\t13,799\t0`);
    await page.locator('.uplot canvas').first().waitFor();
    await shot(page, 'overview-jpy-desktop');

    await page.getByRole('link', { name: 'Advocates' }).click();
    expect(await page.locator('tbody tr').first().innerText()).toBe(`Yui\tyui@example.jp\t${advocate.code}\t2\t13,799\t1,280\t100\t0`);
    await page.getByRole('link', { name: 'Yui' }).click();
    await page.waitForURL(/\/dashboard\/advocates\/\d+$/);
    expect(await cell(page, 'pending')).toBe('100 JPY');
    expect(await cell(page, 'approved')).toBe('1,280 JPY');
    expect(await page.locator('tbody tr').first().innerText()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\tApproved\t1,280\tapproved\t[^\t]+\t12,800 JPY\tpaid$/);
    await shot(page, 'advocate-history-jpy-desktop');
    await page.close();
  });

  it('shows a USD brand\'s EUR order converted at its rate, with the currency on every figure, on a desktop and on a phone', async () => {
    const brand = await givenBrand(t.db, { name: 'Harbor Supply', currency: 'USD', reward_type: 'percentage', reward_value: 10, reward_hold_days: 0, fraud_velocity: false });
    const advocate = await givenAdvocate(t.db, brand.brandId, { first_name: 'Eva', email: 'eva@example.com' });
    // 99.99 EUR at 1.0825 = 108.239175 → 108.24 USD; with 137.26 USD of its own: 245.50 USD.
    await order(brand, { order_value: 99.99, currency: 'EUR', exchange_rate: '1.0825', referral_code: advocate.code, products: [{ title: 'Rain Jacket', qty: 1, price: 99.99, sku: 'JKT-1' }] });
    await order(brand, { order_value: 137.26, referral_code: advocate.code, products: [{ title: 'Rain Jacket', qty: 1, price: 137.26, sku: 'JKT-1' }] });

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page, brand.brandId);
    expect(await cell(page, 'revenue')).toBe('245.50 USD');
    // 10.82 + 13.73.
    expect(await cell(page, 'rewards-earned')).toBe('24.55 USD');
    expect(await cell(page, 'rewards-approved')).toBe('24.55 USD');
    expect(await cell(page, 'rewards-held')).toBe('0.00 USD');
    expect(await page.locator('main').innerText()).toContain('Amounts in USD, the program\'s currency: an order in another currency counts at the exchange rate it was recorded with.');
    await page.locator('.uplot canvas').first().waitFor();
    await shot(page, 'overview-usd-eur-desktop');

    await page.getByRole('link', { name: 'Revenue by product' }).click();
    await page.locator('.uplot canvas').first().waitFor();
    expect(await page.locator('.table-scroll tbody tr').allInnerTexts()).toEqual(['JKT-1\tJKT-1\tRain Jacket\t2\t2\t245.50']);
    await shot(page, 'products-usd-eur-desktop');
    await page.close();

    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    await signIn(phone, brand.brandId);
    await phone.locator('.uplot canvas').first().waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await cell(phone, 'revenue')).toBe('245.50 USD');
    await shot(phone, 'overview-usd-eur-phone');
    await phone.close();
  });
});

/// <reference lib="dom" />
// A plain HTML store page loading referrals.js, in Chromium: the landing visit, the cookies, a
// second landing, and a shopper joining, told to check their email (docs/merchants/storefront.md).
import http from 'node:http';
import type { Browser } from 'playwright-core';
import { createApiKey } from '../../core/brands/api-keys';
import { describeInBrowser, launchBrowser, shot } from '../dashboard/dashboard-browser-kit';
import { givenAdvocate, givenBrand } from '../helpers/fixtures';
import { freePort } from '../helpers/free-port';
import { TEST_SECRET, type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
let service: http.Server;
let store: http.Server;
let browser: Browser;
let api: string;
let shop: string;

/** The store's page, as a merchant pastes the snippet into it. */
const page = (brandId: string, key: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>Northwind store</title>
<script src="${api}/referrals.js" data-brand="${brandId}" data-key="${key}"></script></head>
<body><h1>Northwind</h1>
<form id="join"><label>Email <input name="email" type="email"></label><label>First name <input name="first_name"></label>
<label><input type="checkbox" name="consent" required> I agree to join the referral program</label><button>Join</button></form>
<p id="answer"></p>
<script>
document.getElementById('join').addEventListener('submit', function (event) {
  event.preventDefault();
  var form = new FormData(event.target);
  Referrals.join({ email: form.get('email'), first_name: form.get('first_name') }).then(function (joined) {
    if (joined.status === 'check_your_email') document.getElementById('answer').textContent = 'Check your email: your referral link is on its way to ' + form.get('email') + '.';
  });
});
</script></body></html>`;

let html = '';

describeInBrowser('referrals.js on a plain HTML store page, in Chromium', () => {
  beforeAll(async () => {
    t = await startTestApp();
    const [servicePort, storePort] = [await freePort(), await freePort()];
    api = `http://127.0.0.1:${servicePort}`;
    shop = `http://127.0.0.1:${storePort}`;
    service = http.createServer(t.app.callback());
    store = http.createServer((request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      response.end(html);
    });
    await new Promise<void>((resolve) => service.listen(servicePort, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => store.listen(storePort, '127.0.0.1', resolve));
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => service?.close(resolve));
    await new Promise((resolve) => store?.close(resolve));
  });

  it('records the landing visit, keeps the code and visitor in cookies, handles a second landing, and lets a shopper join', async () => {
    const brand = await givenBrand(t.db, { plan: 'premier', allowed_origins: [shop], store_url: 'https://northwind.example' });
    const key = await createApiKey(t.db, brand.brandId, TEST_SECRET, 'storefront', 'publishable');
    const ann = await givenAdvocate(t.db, brand.brandId, { first_name: 'Ann' });
    const bob = await givenAdvocate(t.db, brand.brandId, { first_name: 'Bob' });
    html = page(brand.brandId, key.api_key);
    const context = await browser.newContext();
    const tab = await context.newPage();

    await tab.goto(`${shop}/?ref=${ann.code}&utm_source=sms`);
    await tab.waitForFunction(() => (window as unknown as { Referrals?: { code(): string | null } }).Referrals?.code() !== null);
    const cookies = Object.fromEntries((await context.cookies(shop)).map((cookie) => [cookie.name, cookie.value]));
    expect(cookies.referrals_code).toBe(ann.code);
    expect(cookies.referrals_visitor).toMatch(/^[0-9a-f-]{36}$/);
    const visits = await t.db('visits').where({ brand_id: brand.brandId }).orderBy('visit_id');
    expect(visits).toHaveLength(1);
    expect({ ...visits[0], advocate_id: Number(visits[0].advocate_id) }).toMatchObject({ visitor_id: cookies.referrals_visitor, advocate_id: ann.advocateId, share_channel: 'sms' });

    // A second landing with another advocate's link: the same visitor; the code as the service says (last click by default).
    await tab.goto(`${shop}/?referral=${bob.code}`);
    await tab.waitForFunction((code) => (window as unknown as { Referrals: { code(): string | null } }).Referrals.code() === code, bob.code);
    const again = Object.fromEntries((await context.cookies(shop)).map((cookie) => [cookie.name, cookie.value]));
    expect(again.referrals_visitor).toBe(cookies.referrals_visitor);
    expect(await t.db('visits').where({ brand_id: brand.brandId, visitor_id: cookies.referrals_visitor })).toHaveLength(2);

    // The shopper joins on the page.
    const email = `zoe-${Date.now()}@example.com`;
    await tab.getByLabel('Email').fill(email);
    await tab.getByLabel('First name').fill('Zoé');
    await tab.getByLabel('I agree to join the referral program').check();
    await tab.getByRole('button', { name: 'Join' }).click();
    // The page hears "check your email" (the same for any address); the code and link go to the address.
    await tab.waitForFunction(() => document.getElementById('answer')!.textContent!.startsWith('Check your email'));
    expect(await tab.locator('#answer').innerText()).toBe(`Check your email: your referral link is on its way to ${email}.`);
    const advocate = await t.db('advocates').where({ brand_id: brand.brandId, email_normalized: email }).first();
    const code = (await t.db('referral_codes').where({ brand_id: brand.brandId, advocate_id: advocate.advocate_id }).first()).code;
    expect(await t.db('mail_messages').where({ brand_id: brand.brandId, template: 'advocate_welcome', advocate_id: advocate.advocate_id })).toHaveLength(1);
    await shot(tab, 'storefront-join');

    // A friend's order with that code, reported by the store's backend: the new advocate is credited.
    const order = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: `friend-${Date.now()}@example.com`, order_id: `storefront-${Date.now()}`, order_value: 60, referral_code: code });
    expect(order.status).toBe(201);
    expect(Number(order.body.data.advocate_id ?? (await t.db('conversions').where({ brand_id: brand.brandId, referral_code: code }).first()).advocate_id)).toBe(Number(advocate.advocate_id));
    expect(await t.db('rewards').where({ brand_id: brand.brandId, advocate_id: advocate.advocate_id })).toHaveLength(1);
    await context.close();
  });
});

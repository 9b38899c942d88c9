/// <reference lib="dom" />
// page.evaluate callbacks run in the browser: their code sees the DOM.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { createBrand } from '../../core/brands/brand';
import { MAIL_TEMPLATES } from '../../core/mail/mail-templates';
import { messageContent, sampleMessage } from '../../core/mail/message-content';
import type { WebhookSettings } from '../../server/webhooks/webhook-settings';
import { type TestBrand, givenAdvocate, givenBrand } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';
import { type Receiver, startReceiver } from '../webhooks/receiver';
import { describeInBrowser, launchBrowser, shot, signIn as signInAs } from './dashboard-browser-kit';


/** The receiver listens on 127.0.0.1: allowed here, as WEBHOOK_ALLOW_PRIVATE=true allows it on a developer's machine. */
const SETTINGS: WebhookSettings = { allowPrivate: true, timeoutMs: 2_000, workerIntervalMs: 50, retryScale: 0.001, disableAfterFailures: 50, disableAfterDays: 5 };

let t: TestApp;
let server: http.Server;
let origin: string;
let browser: Browser;
let brand: TestBrand;
let receiver: Receiver;

/** Two orders from disposable addresses and one from the advocate's own device, held for review, through the API. */
async function givenHeldOrders(): Promise<void> {
  brand = await givenBrand(t.db, { name: 'Northwind Outfitters', plan: 'premier', reward_type: 'percentage', reward_value: 10, reward_hold_days: 0 });
  const ann = await givenAdvocate(t.db, brand.brandId, { first_name: 'Ann', email: 'ann@northwind.example', code: 'ANN10' });
  for (const [email, orderId, value] of [['shopper@mailinator.com', 'NW-2001', 120], ['deals@yopmail.com', 'NW-2002', 64.5]] as const) {
    const sent = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email, order_id: orderId, order_value: value, referral_code: ann.code });
    expect([orderId, sent.status, sent.body.data.review?.status]).toEqual([orderId, 201, 'open']);
  }
}

const signIn = (page: Page) => signInAs(page, t.db, brand.brandId, origin);

const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

describeInBrowser('the Reviews and outbound-webhooks pages, and the program emails, in a real browser (Chromium)', () => {
  beforeAll(async () => {
    t = await startTestApp({ webhooks: SETTINGS });
    server = http.createServer(t.app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    receiver = await startReceiver();
    await givenHeldOrders();
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('approves a held order from the Reviews page with the keyboard: the review is decided by the dashboard and the reward credited', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page);
    await page.getByRole('link', { name: 'Reviews' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${origin}/dashboard/reviews`);
    const cards = page.locator('article.review');
    expect(await cards.count()).toBe(2);
    expect(await cards.first().locator('h2').innerText()).toMatch(/^Review \d+ · order NW-2001 OPEN$/);
    expect(await cards.first().locator('[data-field="amount"]').innerText()).toBe('120.00 USD');
    expect(await cards.first().innerText()).toContain('Disposable email address: mailinator.com is a disposable email provider');
    await shot(page, 'reviews-desktop');

    const first = cards.first();
    await first.getByLabel('Note (optional)').focus();
    await page.keyboard.type('Known customer, phoned');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toMatch(/^Approve review \d+$/);
    await page.keyboard.press('Enter');
    await page.waitForURL(/done=approved/);
    expect(await page.getByRole('status').first().innerText()).toMatch(/^Review \d+ approved\.$/);
    expect(await page.locator('article.review').count()).toBe(1);

    const approved = await t.http.get('/api/v1/reviews?status=approved').set(brand.headers);
    expect(approved.body.data.reviews).toEqual([
      expect.objectContaining({ status: 'approved', decided_by: 'operator (CLI sign-in link)', note: 'Known customer, phoned', conversion: expect.objectContaining({ order_id: 'NW-2001' }) }),
    ]);
    const balance = await t.http.get(`/api/v1/advocates/${approved.body.data.reviews[0].advocate_id}/balance`).set(brand.headers);
    expect(balance.body.data).toMatchObject({ approved: 12 });

    // The browser's own validation keeps a rejection without a reason from being sent at all.
    await page.locator('article.review').first().getByRole('button', { name: /^Reject review/ }).click();
    expect(await page.locator('article.review').count()).toBe(1);
    expect(await page.evaluate(() => (document.querySelector('input[name="reason"]') as HTMLInputElement).validity.valueMissing)).toBe(true);
    await page.close();
  });

  it('reads on a phone: the review cards fit the screen', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    await signIn(page);
    await page.goto(`${origin}/dashboard/reviews?status=all`);
    expect(await page.locator('article.review').count()).toBe(2);
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    await shot(page, 'reviews-phone');
    await page.close();
  });

  it('adds an endpoint (its secret shown once), sends it a test event and sees it delivered in the log', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page);
    await page.getByRole('link', { name: 'Connections' }).click();
    await page.getByLabel('URL (https://…)').fill(receiver.url);
    await page.getByLabel('conversion.created').check();
    await page.getByLabel('reward.credited').check();
    await page.getByLabel('Description (optional)').fill('Our ERP');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.waitForURL(/\/dashboard\/connections\?created=ep_/);
    const createdAt = page.url();
    const secret = await page.getByRole('textbox', { name: 'Signing secret', exact: true }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    expect(await page.locator('main').innerText()).toContain('shown only this once');
    await shot(page, 'connections-webhook-added-desktop');

    await page.getByRole('link', { name: 'Send it a test event' }).click();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.waitForURL(/done=tested/);
    expect(await page.getByRole('status').first().innerText()).toBe('Test event delivered: the receiver answered HTTP 200.');
    const row = page.locator('tbody tr[data-delivery]');
    expect(await row.count()).toBe(1);
    const cells = (await row.first().locator('th, td').allInnerTexts()).map((text) => text.trim());
    expect(cells[1]).toMatch(/^webhook\.test\nevt_\S+$/);
    expect(cells.slice(2, 7)).toEqual(['DELIVERED', '1', expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/), 'HTTP 200', '']);
    expect(await row.first().getByRole('button', { name: /^Replay delivery \d+$/ }).count()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ type: 'webhook.test' });
    expect(await pageWidth(page)).toBeLessThanOrEqual(1280);
    await shot(page, 'connections-webhook-log-desktop');

    await page.getByRole('link', { name: '← Connections' }).click();
    expect(await page.locator('main').innerText()).not.toContain(secret);
    // The address that showed it, opened again: no secret.
    await page.goto(createdAt);
    expect(await page.locator('main').innerText()).not.toContain(secret);
    const endpointRow = page.locator('[data-section="outbound-webhooks"] tbody tr');
    expect(await endpointRow.innerText()).toContain('webhook.test: delivered (HTTP 200)');
    expect(await pageWidth(page)).toBeLessThanOrEqual(1280);
    await shot(page, 'connections-webhooks-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    await page.close();
  });
  it('shows on a phone what an advocate owes after a refund of paid-out money, apart from the payable list, within 390 px (issue 40)', async () => {
    const owing = await givenBrand(t.db, { name: 'Owed Outfitters', reward_type: 'fixed', reward_value: 10, reward_hold_days: 0 });
    const bo = await givenAdvocate(t.db, owing.brandId, { first_name: 'Bo', email: 'bo.with.a.rather.long.address@northwind-outfitters.example', code: 'BO10' });
    const sale = await t.http.post('/api/v1/track/conversion').set(owing.headers).send({ email: 'friend@example.com', order_id: 'OW-1', order_value: 80, referral_code: bo.code });
    expect(sale.status).toBe(201);
    const [line] = (await t.http.get('/api/v1/payouts').set(owing.headers)).body.data.payouts;
    expect((await t.http.post('/api/v1/payouts/mark-paid').set(owing.headers).send({ payouts: [{ payout_id: line.payout_id, advocate_id: line.advocate_id, amount: line.amount }] })).status).toBe(200);
    expect((await t.http.post('/api/v1/track/refund').set(owing.headers).send({ order_id: 'OW-1', refund_amount: 80, is_full_refund: true })).status).toBe(200);

    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    await signInAs(page, t.db, owing.brandId, origin);
    await page.goto(`${origin}/dashboard/payouts`);
    expect(await page.getByText('Nothing to pay').isVisible()).toBe(true);
    const owed = page.getByRole('table', { name: 'Owed (USD)' });
    expect(await owed.locator('tbody tr').innerText()).toMatch(/Owes 10\.00 USD from a refunded order; taken from their next rewards\./);
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    await shot(page, 'payouts-owed-phone');
    await page.goto(`${origin}/dashboard/advocates/${bo.advocateId}`);
    expect(await page.locator('[data-metric="owed"]').innerText()).toBe('10.00 USD');
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    await page.close();
  });

  it('voids a reward on a phone through its confirmation page, with a reason, within 390 px and without sideways scrolling (issue 41)', async () => {
    const held = await givenBrand(t.db, { name: 'Held Outfitters', reward_type: 'fixed', reward_value: 10, reward_hold_days: 30 });
    const cy = await givenAdvocate(t.db, held.brandId, { first_name: 'Cy', email: 'cy.with.a.rather.long.address@northwind-outfitters.example', code: 'CY10' });
    for (const orderId of ['HO-1-with-a-long-order-reference-from-the-store', 'HO-2']) {
      const sale = await t.http.post('/api/v1/track/conversion').set(held.headers).send({ email: 'friend@example.com', order_id: orderId, order_value: 80, referral_code: cy.code });
      expect(sale.status).toBe(201);
    }
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    await signInAs(page, t.db, held.brandId, origin);
    await page.goto(`${origin}/dashboard/rewards`);
    expect(await page.locator('article.reward').count()).toBe(2);
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    await shot(page, 'rewards-phone');
    const newest = page.locator('article.reward').first();
    const heading = await newest.locator('h2').innerText();
    const rewardId = /Reward (\d+)/.exec(heading)![1];
    await newest.getByRole('link', { name: `Void reward ${rewardId}…` }).click();
    await page.waitForURL(/\/void\?/);
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    await page.getByRole('button', { name: 'Yes, void this reward' }).click();
    // The browser refuses an empty reason: still on the confirmation page.
    expect(page.url()).toContain(`/dashboard/rewards/${rewardId}/void`);
    await page.getByLabel('Reason (required; kept with the reward)').fill('a test order');
    await page.getByRole('button', { name: 'Yes, void this reward' }).click();
    await page.waitForURL(/done=voided/);
    expect(await page.getByRole('status').innerText()).toBe(`Reward ${rewardId} voided.`);
    expect(await page.locator(`#reward-${rewardId} [data-field="status"]`).innerText()).toMatch(/^Voided /);
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    await page.close();
  });

  it('renders every program email\'s HTML part as a mail client would: names typed by people are text, the share button and unsubscribe link work, and it fits a phone', async () => {
    const shop = await createBrand(t.db, {
      name: 'Northwind <Outfitters>', plan: 'growth', reward_type: 'fixed', reward_value: 10, referee_discount_type: 'percentage',
      referee_discount_value: 15, referee_min_purchase: 50, store_url: 'https://northwind.example',
    });
    const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
    for (const template of MAIL_TEMPLATES) {
      const sample = sampleMessage(shop, template);
      const render = (firstName: string) =>
        messageContent(shop, { template, data: sample.data }, undefined, { ...sample.advocate, first_name: firstName }, 'https://referrals.example/mail/unsubscribe/t.s').html;
      await page.setContent(render('<img src=x onerror="window.hacked=1">Alex'));
      expect([template, await page.locator('img').count(), await page.evaluate(() => (window as unknown as { hacked?: number }).hacked)]).toEqual([template, 0, undefined]);
      expect(await page.locator('body').innerText()).toContain('<img src=x onerror="window.hacked=1">Alex');
      await page.setContent(render('Alex'));
      const text = await page.locator('body').innerText();
      expect(text).toContain('Northwind <Outfitters>');
      if (template !== 'friend_offer') expect([template, text]).toEqual([template, expect.stringContaining(template === 'reward_paid' ? '$42.50' : template.startsWith('reward') ? '$12.50' : '15% off orders of $50.00 or more')]);
      expect(await page.getByRole('link', { name: 'Unsubscribe' }).getAttribute('href')).toBe('https://referrals.example/mail/unsubscribe/t.s');
      if (/welcome|reengagement|approved|friend/.test(template)) {
        const button = page.getByRole('link', { name: template === 'friend_offer' ? 'Shop with your offer' : 'Share your link' });
        expect([template, await button.getAttribute('href')]).toEqual([template, 'https://northwind.example/?ref=ALEX7K2Q9']);
      }
      expect([template, await pageWidth(page)]).toEqual([template, 375]);
      await shot(page, `email-${template}`);
    }
    await page.close();
  });
});

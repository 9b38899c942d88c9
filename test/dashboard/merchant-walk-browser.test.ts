/// <reference lib="dom" />
// page.evaluate callbacks run in the browser: their code sees the DOM.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { enqueueDigests } from '../../core/accounts/merchant-notices';
import { decryptSecret } from '../../core/brands/key-encryption';
import { afterAnswerSettled } from '../../server/after-answer';
import { type TestBrand, givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { TEST_SECRET, type TestApp, startTestApp } from '../helpers/test-app';
import { captureMail } from '../mail/mail-capture';
import { csrfTokenOf, signedInAgent } from './dashboard-helpers';
import { describeInBrowser, launchBrowser, shot } from './dashboard-browser-kit';

/**
 * Issue 41, Done when: the merchant's walk, in Chromium, with no CLI command and no REST call of
 * theirs — signed in by the emailed invitation, they approve one reward early and void another
 * with a reason, edit an email with its preview and send themselves a test, read the sent log, and
 * get the daily summary; on a phone too, and meeting none of the defects the issue found.
 */

let t: TestApp;
let server: http.Server;
let origin: string;
let browser: Browser;
let brand: TestBrand;
let owner: string;

/** The link of the invitation emailed to `email` (what the merchant clicks in their inbox). */
async function invitationLink(email: string): Promise<string> {
  await afterAnswerSettled(t.app);
  const row = await t.db('mail_messages').where({ brand_id: brand.brandId, template: 'merchant_invitation', recipient_normalized: email }).first();
  const link = new URL(decryptSecret((typeof row.data === 'string' ? JSON.parse(row.data) : row.data).link_sealed, TEST_SECRET));
  return `${origin}${link.pathname}${link.search}`;
}

describeInBrowser("a merchant runs the program from the dashboard, start to end (Chromium)", () => {
  beforeAll(async () => {
    t = await startTestApp();
    server = http.createServer(t.app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    brand = await givenBrand(t.db, { name: 'Northwind', plan: 'premier', reward_type: 'fixed', reward_value: 10, reward_hold_days: 30 });
    const ann = await givenAdvocate(t.db, brand.brandId, { first_name: 'Ann', email: `ann-${Date.now()}@northwind.example` });
    for (let i = 0; i < 2; i += 1) {
      const order = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: `friend-${i}-${Date.now()}@example.com`, order_id: uniqueOrderId(), order_value: 80, referral_code: ann.code });
      expect(order.status).toBe(201);
    }
    // The operator invites the owner once (the one step before the merchant has an account).
    owner = `owner-${Date.now()}@northwind.example`;
    const operator = await signedInAgent(t.app, t.db, brand.brandId);
    await operator.post('/dashboard/team/invite').type('form').send({ csrf_token: csrfTokenOf((await operator.get('/dashboard/team')).text), email: owner, role: 'owner' });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });
  const mail = captureMail(() => t.db);

  it('approves and voids rewards, edits and tests an email, reads the sent log, and gets the daily summary', async () => {
    const page: Page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(await invitationLink(owner));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${origin}/dashboard`);
    expect(await page.locator('body').innerText()).not.toMatch(/referrals (brand|dashboard|key)|npx /);

    // Rewards: one approved early, the other voided with a reason behind its confirmation.
    await page.getByRole('link', { name: 'Rewards', exact: true }).click();
    const approve = page.getByRole('button', { name: /^Approve reward \d+ now$/ }).first();
    const approvedId = (await approve.innerText()).match(/\d+/)![0];
    await Promise.all([page.waitForNavigation(), approve.click()]);
    expect(await page.getByRole('status').first().innerText()).toBe(`Reward ${approvedId} approved.`);
    const otherId = (await t.db('rewards').where({ brand_id: brand.brandId }).whereNot({ reward_id: approvedId }).first()).reward_id;
    await page.getByRole('link', { name: `Void reward ${otherId}…` }).click();
    await page.getByLabel(/^Reason/).fill('duplicate order');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Yes, void this reward' }).click()]);
    const statuses = await t.db('rewards').where({ brand_id: brand.brandId }).orderBy('reward_id').pluck('status');
    expect(statuses.sort()).toEqual(['approved', 'voided']);
    expect(await t.db('rewards').where({ reward_id: approvedId }).first()).toMatchObject({ status: 'approved' });
    await shot(page, 'walk-rewards-desktop');

    // Emails: a new subject previewed (not saved), saved, then a test to the merchant.
    await page.getByRole('link', { name: 'Emails', exact: true }).click();
    await page.getByRole('link', { name: 'Reward approved' }).click();
    await page.getByLabel('Subject').fill('Well done, {{first_name}}: your reward is approved');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Preview' }).click()]);
    expect(await page.locator('[data-field="preview-subject"]').innerText()).toBe('Well done, Alex: your reward is approved');
    expect(await t.db('mail_templates').where({ brand_id: brand.brandId })).toEqual([]);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Save' }).click()]);
    expect(await page.getByRole('status').first().innerText()).toContain('Saved');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: `Send a test to ${owner}` }).click()]);
    await mail.sendDue(brand.brandId);
    expect(mail.receivedBy(owner).map((received) => received.subject)).toContain('[Test] Well done, Alex: your reward is approved');
    await shot(page, 'walk-email-desktop');

    // The sent log names the test, in words.
    await page.getByRole('link', { name: '← All emails' }).click();
    const log = await page.locator('#log ~ .table-scroll tbody').first().innerText();
    expect(log).toContain(owner);
    expect(log.toLowerCase()).toContain('sent');

    // The daily summary reaches the owner.
    expect(await enqueueDigests(t.db, new Date(), { brandId: brand.brandId })).toBe(1);
    await mail.sendDue(brand.brandId);
    const summary = mail.receivedBy(owner).find((received) => received.subject?.startsWith('Northwind referrals:'));
    expect(summary!.text).toContain('referred orders: https://referrals.example/dashboard/activity');

    // The same pages on a phone: no sideways scroll.
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of ['/dashboard/rewards', '/dashboard/emails', '/dashboard/emails/reward_approved']) {
      await page.goto(`${origin}${path}`);
      expect([path, await page.evaluate(() => document.documentElement.scrollWidth)]).toEqual([path, 390]);
    }
    await page.close();
  });
});

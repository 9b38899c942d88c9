/// <reference lib="dom" />
// The "Done when", as a merchant does it in Chromium: no shell after the brand exists.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { ParsedMail } from 'mailparser';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { PollingWorker } from '../../core/jobs/polling-worker';
import { startImportWorker } from '../../server/advocate-import-worker';
import { runCli } from '../../server/cli/run-cli';
import { startMailWorker } from '../../server/mail/deliver-mail';
import { createMailTransport, type MailTransport } from '../../server/mail/mail-transport';
import type { MailSettings } from '../../server/mail/mail-settings';
import { freePort } from '../helpers/free-port';
import { TEST_SECRET, type TestApp, startTestApp, testConfig } from '../helpers/test-app';
import { type SmtpReceiver, startSmtpReceiver } from '../mail/smtp-receiver';
import { describeInBrowser, launchBrowser, shot } from './dashboard-browser-kit';

let t: TestApp;
let server: http.Server;
let origin: string;
let browser: Browser;
let smtp: SmtpReceiver;
let transport: MailTransport;
const workers: PollingWorker[] = [];
const contexts: BrowserContext[] = [];
let brandId: string;
const stamp = Date.now();
const OWNER = `owner-${stamp}@northwind.example`;
const ADMIN = `admin-${stamp}@northwind.example`;
const VIEWER = `viewer-${stamp}@northwind.example`;

/** The sign-in link of the newest email to `address` (plain-text part). */
async function emailedLink(address: string, subject: RegExp): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const mail = smtp.received.filter((m: ParsedMail) => !Array.isArray(m.to) && m.to?.value[0]?.address === address && subject.test(m.subject ?? '')).at(-1);
    if (mail) return /Sign in: (\S+)/.exec(mail.text ?? '')![1]!;
    if (Date.now() > deadline) throw new Error(`no email to ${address} matching ${subject}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Opens an emailed link in a fresh browser session and presses Sign in. */
async function signInWith(link: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(link);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${origin}/dashboard`);
  return page;
}

const brandRow = () => t.db('brands').where({ brand_id: brandId }).first();

describeInBrowser('merchant self-service in a real browser (Chromium): invited by email, settings, import, keys, payouts, roles', () => {
  beforeAll(async () => {
    // The links the emails carry point at PUBLIC_URL: this server's own address.
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await startTestApp({ publicUrl: origin });
    server = http.createServer(t.app.callback());
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    smtp = await startSmtpReceiver();
    browser = await launchBrowser();
    // The one shell step: the operator creates the brand with its first owner.
    const created = await runCli(['brand', 'create', '--name', 'Northwind Outfitters', '--plan', 'premier', '--reward-type', 'fixed', '--reward-value', '5', '--owner-email', OWNER, '--json'], {
      db: t.db, config: testConfig({ publicUrl: origin }), isTTY: false, progress: () => undefined,
    });
    expect(created.code).toBe(0);
    brandId = JSON.parse(created.stdout).brand_id;
    const settings: MailSettings = { smtpUrl: smtp.url, from: 'referrals@northwind.example', workerIntervalMs: 50, sendTimeoutMs: 20_000, retryScale: 0.001 };
    transport = createMailTransport(settings, '/nonexistent');
    workers.push(startMailWorker({ db: t.db, transport, settings, publicUrl: origin, secret: TEST_SECRET, logger: t.app.context.deps.logger, brandId }));
    workers.push(startImportWorker({ db: t.db, logger: t.app.context.deps.logger, brandId, intervalMs: 100 }));
  }, 60_000);
  afterAll(async () => {
    // Each context closed (its downloads and request contexts with it) before the browser.
    await Promise.all(contexts.map((context) => context.close()));
    await Promise.all(workers.map((worker) => worker.stop()));
    transport?.close();
    await smtp?.stop();
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  let owner: Page;

  it('the owner opens the invitation email, signs in, and sets a 15 % friend offer with a 50.00 minimum (an invalid value shown next to its field)', async () => {
    owner = await signInWith(await emailedLink(OWNER, /invited/));
    await owner.getByRole('link', { name: 'Settings', exact: true }).click();
    await owner.getByLabel('Offer type').selectOption('percentage');
    await owner.getByLabel(/^Offer value/).fill('fifteen');
    await owner.getByRole('button', { name: 'Save settings' }).click();
    expect(await owner.locator('#setting-referee_discount_value-error').innerText()).toBe('Offer value must be a number, like 15 or 12.50');
    expect(await owner.getByLabel(/^Offer value/).getAttribute('aria-invalid')).toBe('true');
    await shot(owner, 'settings-refused');
    await owner.getByLabel(/^Offer value/).fill('15');
    await owner.getByLabel(/^Minimum purchase/).fill('50.00');
    await owner.getByLabel('Hold days').fill('0');
    await owner.getByRole('button', { name: 'Save settings' }).click();
    await owner.waitForURL(/saved=1/);
    expect(await owner.getByRole('status').first().innerText()).toBe('Settings saved.');
    expect(await brandRow()).toMatchObject({ referee_discount_type: 'percentage', reward_hold_days: 0 });
    expect(Number((await brandRow()).referee_discount_value)).toBe(15);
    expect(Number((await brandRow()).referee_min_purchase)).toBe(50);
    await shot(owner, 'settings');
  });

  it('imports 1,000 advocates from a CSV with a progress page, refused lines listed', async () => {
    const lines = ['email,first_name,last_name,code'];
    for (let i = 1; i <= 1000; i += 1) lines.push(`advocate${i}-${stamp}@example.com,Adv${i},Lee,NW${i}X${stamp % 100000}`);
    lines.push('not-an-email,Bad,,');
    const file = path.join(os.tmpdir(), `advocates-${stamp}.csv`);
    fs.writeFileSync(file, lines.join('\n'));
    await owner.getByRole('link', { name: 'Advocates' }).click();
    await owner.getByText('Add or import advocates').click();
    await owner.getByLabel('Advocates file (CSV)').setInputFiles(file);
    await owner.getByRole('button', { name: 'Import' }).click();
    await owner.waitForURL(/\/dashboard\/advocates\/imports\/\d+/);
    expect(await owner.locator('progress').count()).toBe(1);
    await owner.waitForFunction(() => document.querySelector('[data-field="import-status"]')?.textContent?.includes('Done'), undefined, { timeout: 60_000 });
    expect(await owner.locator('[data-field="import-status"]').innerText()).toBe('Done: 1,000 advocates created, 1 line refused.');
    expect(await owner.locator('table').innerText()).toContain('email');
    await shot(owner, 'advocates-import');
    expect(await t.db('advocates').where({ brand_id: brandId }).count({ n: '*' }).first()).toMatchObject({ n: expect.anything() });
    expect(Number((await t.db('advocates').where({ brand_id: brandId }).count({ n: '*' }).first())!.n)).toBe(1000);
  });

  let apiKey: string;

  it('creates an API key, shown once, that the backend then uses', async () => {
    await owner.getByRole('link', { name: 'API keys' }).click();
    await owner.getByLabel('Label (what the key is for)').fill('checkout backend');
    await owner.getByRole('button', { name: 'Create key' }).click();
    apiKey = await owner.getByRole('textbox', { name: 'API key' }).inputValue();
    expect(apiKey).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    await shot(owner, 'api-keys');
    const order = await t.http.post('/api/v1/track/conversion').set({ 'X-API-Key': apiKey, 'X-Brand-ID': brandId })
      .send({ email: `friend-${stamp}@example.com`, order_id: `NW-${stamp}`, order_value: 80, referral_code: `NW7X${stamp % 100000}` });
    expect(order.status).toBe(201);
    await owner.reload();
    expect(await owner.getByRole('textbox', { name: 'API key' }).count()).toBe(0);
  });

  it('an invited admin signs in from the sign-in page by emailed link, downloads the payouts and uploads the paid file', async () => {
    await owner.getByRole('link', { name: 'Team' }).click();
    await owner.getByLabel('Email address').fill(ADMIN);
    await owner.getByLabel('Role', { exact: true }).selectOption('admin');
    await owner.getByRole('button', { name: 'Send invitation' }).click();
    expect(await owner.getByRole('status').first().innerText()).toContain(`Invited ${ADMIN} as admin`);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    contexts.push(context);
    const asking = await context.newPage();
    await asking.goto(`${origin}/dashboard/sign-in`);
    await asking.getByLabel('Email address').fill(ADMIN);
    await asking.getByRole('button', { name: 'Email me a sign-in link' }).click();
    expect(await asking.locator('main').innerText()).toContain('a sign-in link is on its way');
    await shot(asking, 'sign-in-sent');
    const admin = await signInWith(await emailedLink(ADMIN, /^Sign in to/));

    await admin.getByRole('link', { name: 'Payouts' }).click();
    const [download] = await Promise.all([admin.waitForEvent('download'), admin.getByRole('link', { name: 'Download the payouts file (CSV)' }).click()]);
    const paidFile = path.join(os.tmpdir(), `paid-${stamp}.csv`);
    await download.saveAs(paidFile);
    const csv = fs.readFileSync(paidFile, 'utf8');
    expect(csv).toContain(',5.00');
    await admin.getByLabel(/^Paid payouts/).setInputFiles(paidFile);
    await admin.getByRole('button', { name: 'Record as paid' }).click();
    expect(await admin.getByRole('status').first().innerText()).toMatch(/^Recorded 1 payout \(5\.00 USD\)/);
    expect(await admin.locator('main').innerText()).toContain('Nothing to pay');
    await shot(admin, 'payouts');
  });

  it('a viewer sees the pages but no form, and a form posted by hand is refused 403 and changes nothing', async () => {
    await owner.getByRole('link', { name: 'Team' }).click();
    await owner.getByLabel('Email address').fill(VIEWER);
    await owner.getByLabel('Role', { exact: true }).selectOption('viewer');
    await owner.getByRole('button', { name: 'Send invitation' }).click();
    const viewer = await signInWith(await emailedLink(VIEWER, /invited/));
    await viewer.getByRole('link', { name: 'Settings', exact: true }).click();
    expect(await viewer.getByRole('button', { name: 'Save settings' }).count()).toBe(0);
    expect(await viewer.getByLabel(/^Offer value/).isDisabled()).toBe(true);
    const csrf = await viewer.locator('input[name="csrf_token"]').first().inputValue();
    const posted = await viewer.request.post(`${origin}/dashboard/settings`, { form: { csrf_token: csrf, referee_discount_value: '99' }, headers: { Origin: origin } });
    expect(posted.status()).toBe(403);
    expect(Number((await brandRow()).referee_discount_value)).toBe(15);
    await viewer.getByRole('link', { name: 'Advocates' }).click();
    expect(await viewer.getByText('Add or import advocates').count()).toBe(0);
    await viewer.getByRole('link', { name: 'Audit log' }).click();
    const audit = await viewer.locator('table').innerText();
    for (const action of ['brand.settings', 'advocate.import', 'api_key.create', 'user.invite', 'payouts.mark_paid']) expect(audit).toContain(action);
    await shot(viewer, 'audit-log');
  });
});

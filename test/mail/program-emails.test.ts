import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ParsedMail } from 'mailparser';
import { enrollAdvocate } from '../../core/advocates/enroll-advocate';
import { updateBrand } from '../../core/brands/brand';
import { redactCustomer } from '../../core/customers/redact-customer';
import { enqueueAccountMail } from '../../core/accounts/account-mail';
import { Invalid } from '../../core/errors';
import { enqueueMail } from '../../core/mail/enqueue-mail';
import { friendOfferMail } from '../../core/mail/program-mail';
import { queueReengagement } from '../../core/mail/reengagement';
import { runCli } from '../../server/cli/run-cli';
import pino from 'pino';
import { type MailDeps, deliverDueMail, startMailWorker } from '../../server/mail/deliver-mail';
import type { MailSettings } from '../../server/mail/mail-settings';
import { createMailTransport } from '../../server/mail/mail-transport';
import { type TestBrand, givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { TEST_SECRET, type TestApp, startTestApp, testConfig } from '../helpers/test-app';
import { type SmtpReceiver, startSmtpReceiver } from './smtp-receiver';

const PUBLIC_URL = 'https://referrals.example';

let t: TestApp;
let smtp: SmtpReceiver;
let deps: MailDeps;

function settings(smtpUrl: string | null): MailSettings {
  // A timeout no loaded machine reaches: a slow answer must not become a retry the test did not ask for.
  return { smtpUrl, from: 'program@shop.example', workerIntervalMs: 50, sendTimeoutMs: 20_000, retryScale: 0.001 };
}

/** Worker passes for one brand until nothing of it is due now. */
async function sendDue(brandId: string, using: MailDeps = deps): Promise<void> {
  while ((await deliverDueMail(using, brandId)) > 0);
}

const brandName = async (brand: TestBrand): Promise<string> => (await t.db('brands').where({ brand_id: brand.brandId }).first('name')).name;
const messagesOf = (brandId: string) => t.db('mail_messages').where({ brand_id: brandId }).orderBy('message_id');
const receivedBy = (address: string) => smtp.received.filter((mail) => mail.to && !Array.isArray(mail.to) && mail.to.value[0]?.address?.toLowerCase() === address);
/** A header as it arrived (unfolded), without its name. */
const header = (mail: ParsedMail, name: string) => mail.headerLines.find((line) => line.key === name)?.line.replace(/\r?\n[ \t]+/g, ' ').slice(name.length + 1).trim() ?? '';
/** The unsubscribe URL a mail client reads: List-Unsubscribe's <https://…>. */
const unsubscribeLink = (mail: ParsedMail) => /^<([^>]+)>$/.exec(header(mail, 'list-unsubscribe'))?.[1] ?? '';

async function convert(brand: TestBrand, code: string, email = `friend-${uniqueOrderId()}@example.com`, orderValue = 120): Promise<number> {
  const sent = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email, order_id: uniqueOrderId(), order_value: orderValue, referral_code: code });
  expect(sent.status).toBe(201);
  return sent.body.data.conversion_id;
}

beforeAll(async () => {
  t = await startTestApp({ publicUrl: PUBLIC_URL });
  smtp = await startSmtpReceiver();
  deps = { db: t.db, transport: createMailTransport(settings(smtp.url), '/nonexistent'), settings: settings(smtp.url), publicUrl: PUBLIC_URL, secret: TEST_SECRET };
});
afterAll(async () => {
  deps?.transport.close();
  await smtp?.stop();
});

describe('program emails through a real SMTP server', () => {
  it('sends reward_earned for a credited conversion: the brand as sender, both parts, the amount and the hold, one-click unsubscribe headers', async () => {
    const brand = await givenBrand(t.db, { name: 'Northwind', reward_type: 'fixed', reward_value: 12.5, reward_hold_days: 30, store_url: 'https://northwind.example' });
    const ann = await givenAdvocate(t.db, brand.brandId, { first_name: 'Ann', email: 'ann@northwind.example', code: 'ANN12' });
    await convert(brand, ann.code);
    await sendDue(brand.brandId);

    const [mail] = receivedBy('ann@northwind.example');
    expect(mail).toBeDefined();
    expect(mail!.from?.value[0]).toEqual({ name: 'Northwind', address: 'program@shop.example' });
    expect(mail!.subject).toBe('You earned $12.50 from a referral');
    const heldUntil = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date(Date.now() + 30 * 86_400_000));
    expect(mail!.text).toContain(`you earned $12.50`);
    expect(mail!.text).toContain(`held until ${heldUntil}`);
    expect(mail!.html).toContain(`held until ${heldUntil}`);
    expect(header(mail!, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(unsubscribeLink(mail!)).toMatch(/^https:\/\/referrals\.example\/mail\/unsubscribe\/[\w-]+\.[\w-]+$/);
    expect(mail!.messageId).toMatch(/^<mail\.\d+\..+@referrals\.example>$/);
    const [row] = await messagesOf(brand.brandId);
    expect([row.template, row.status, row.subject, row.attempts]).toEqual(['reward_earned', 'sent', 'You earned $12.50 from a referral', 1]);
  });

  it('unsubscribes with the one-click POST: the address gets nothing more from that brand, and another brand still writes to it', async () => {
    const brand = await givenBrand(t.db, { reward_value: 5 });
    const other = await givenBrand(t.db, { reward_value: 5 });
    const bob = await givenAdvocate(t.db, brand.brandId, { email: 'bob@unsub.example' });
    const bobElsewhere = await givenAdvocate(t.db, other.brandId, { email: 'bob@unsub.example' });
    await convert(brand, bob.code);
    await sendDue(brand.brandId);
    const link = new URL(unsubscribeLink(receivedBy('bob@unsub.example')[0]!));

    const asked = await t.http.get(link.pathname);
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('bob@unsub.example');
    expect(await t.db('mail_suppressions').where({ brand_id: brand.brandId })).toHaveLength(0); // opening the link changes nothing
    const posted = await t.http.post(link.pathname).type('form').send('List-Unsubscribe=One-Click');
    expect(posted.status).toBe(200);
    expect((await t.http.post(link.pathname).type('form').send('List-Unsubscribe=One-Click')).status).toBe(200); // again: the same

    await convert(brand, bob.code);
    await convert(other, bobElsewhere.code);
    await sendDue(brand.brandId);
    await sendDue(other.brandId);
    expect((await messagesOf(brand.brandId)).map((row) => row.status)).toEqual(['sent']);
    expect((await messagesOf(other.brandId)).map((row) => row.status)).toEqual(['sent']);
    expect(receivedBy('bob@unsub.example')).toHaveLength(2);
  });

  it('an erasure request deletes the messages written to that address and keeps its unsubscribe', async () => {
    const brand = await givenBrand(t.db);
    const gone = await givenAdvocate(t.db, brand.brandId, { email: 'erase@privacy.example' });
    await convert(brand, gone.code);
    await sendDue(brand.brandId);
    const link = new URL(unsubscribeLink(receivedBy('erase@privacy.example')[0]!));
    expect((await t.http.post(link.pathname)).status).toBe(200);
    await t.db.transaction((trx) => redactCustomer(trx, brand.brandId, { email: 'erase@privacy.example', order_ids: [] }));
    expect(await messagesOf(brand.brandId)).toHaveLength(0);
    expect(await t.db('mail_suppressions').where({ brand_id: brand.brandId }).pluck('reason')).toEqual(['unsubscribed']);
  });

  it('refuses an unsubscribe link that was altered or made for another address', async () => {
    const brand = await givenBrand(t.db);
    const carol = await givenAdvocate(t.db, brand.brandId, { email: 'carol@tamper.example' });
    await convert(brand, carol.code);
    await sendDue(brand.brandId);
    const link = new URL(unsubscribeLink(receivedBy('carol@tamper.example')[0]!)).pathname;
    const [body, signature] = link.split('/').pop()!.split('.');
    const forged = Buffer.from(`${brand.brandId}\nsomeone@else.example`).toString('base64url');
    for (const path of [`/mail/unsubscribe/${forged}.${signature}`, `/mail/unsubscribe/${body}.${signature!.slice(0, -2)}xx`, '/mail/unsubscribe/nonsense']) {
      expect([path, (await t.http.post(path)).status]).toEqual([path, 404]);
    }
    expect(await t.db('mail_suppressions').where({ brand_id: brand.brandId })).toHaveLength(0);
  });

  it('escapes what people typed: an advocate named <script> is text in the HTML part', async () => {
    const brand = await givenBrand(t.db, { name: 'Tom & <Jerry>', store_url: 'https://shop.example' });
    await t.db.transaction((trx) => enrollAdvocate(trx, brand.brandId, { email: 'xss@escape.example', first_name: '<script>alert(1)</script>' }));
    await sendDue(brand.brandId);
    const [mail] = receivedBy('xss@escape.example');
    expect(mail!.html).not.toContain('<script>');
    expect(mail!.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(mail!.html).toContain('Tom &amp; &lt;Jerry&gt;');
    expect(mail!.text).toContain('Hi <script>alert(1)</script>,');
    expect(mail!.html).toMatch(/href="https:\/\/shop\.example\/\?ref=SCRIPTAL\w+"/);
  });

  it('sends a stored recipient only as one address: a header break, a list or a group is failed unsent, with no Bcc (issue 39, 11)', async () => {
    const brand = await givenBrand(t.db);
    const hostile = ['one@rcpt.example\r\nBcc: bcc@rcpt.example', 'two@rcpt.example, list@rcpt.example', 'team: three@rcpt.example, group@rcpt.example;'];
    // No route takes such an address (they are checked where taken): written straight into the outbox, beside one that is fine.
    await t.db('mail_messages').insert([...hostile, 'fine@rcpt.example'].map((recipient, index) => ({
      brand_id: brand.brandId, template: 'advocate_welcome', dedupe_key: `recipient:${index}`, recipient, recipient_normalized: recipient.toLowerCase(), data: {},
    })));
    await sendDue(brand.brandId);
    const ours = smtp.received.filter((mail) => mail.messageId?.includes(brand.brandId));
    expect(ours.map((mail) => smtp.envelopeTo.get(mail))).toEqual([['fine@rcpt.example']]);
    expect([...smtp.envelopeTo.values()].flat().filter((address) => address.endsWith('@rcpt.example'))).toEqual(['fine@rcpt.example']);
    const rows = await messagesOf(brand.brandId);
    const notOne = ['failed', 1, 'not sent: the recipient is not one email address'];
    expect(rows.map((row) => [row.status, row.attempts, row.last_error])).toEqual([notOne, notOne, notOne, ['sent', 1, null]]);
    expect(await deliverDueMail(deps, brand.brandId)).toBe(0); // not retried
  });

  it('keeps everything through an SMTP outage and sends each message once, in order per recipient, when the server is back', async () => {
    const brand = await givenBrand(t.db, { reward_value: 1, reward_hold_days: 30 });
    const dana = await givenAdvocate(t.db, brand.brandId, { email: 'dana@outage.example' });
    const eve = await givenAdvocate(t.db, brand.brandId, { email: 'eve@outage.example' });
    await smtp.stop();
    const orders = [];
    for (const value of [10, 20, 30]) orders.push(await convert(brand, dana.code, undefined, value));
    await convert(brand, eve.code);
    for (let pass = 0; pass < 3; pass += 1) {
      await sendDue(brand.brandId);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const waiting = await messagesOf(brand.brandId);
    expect(waiting.map((row) => row.status)).toEqual(['queued', 'queued', 'queued', 'queued']);
    expect(waiting[0].last_error).toMatch(/ECONNREFUSED|connect/i);
    expect(waiting[0].attempts).toBeGreaterThan(1);
    expect(waiting[1].attempts).toBe(0); // dana's second waits for her first

    await smtp.start();
    const deadline = Date.now() + 15_000;
    while ((await messagesOf(brand.brandId)).some((row) => row.status !== 'sent') && Date.now() < deadline) {
      await sendDue(brand.brandId);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await messagesOf(brand.brandId)).map((row) => row.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
    const danas = receivedBy('dana@outage.example');
    expect(danas.map((mail) => mail.subject)).toEqual(['You earned $1.00 from a referral', 'You earned $1.00 from a referral', 'You earned $1.00 from a referral']);
    expect(danas.map((mail) => mail.messageId)).toEqual((await messagesOf(brand.brandId)).filter((row) => row.recipient === 'dana@outage.example').map((row) => `<mail.${row.message_id}.${brand.brandId}@referrals.example>`));
    expect(receivedBy('eve@outage.example')).toHaveLength(1);
    expect(orders).toHaveLength(3);
  });

  it('notices within a probe interval that the SMTP server is back, instead of waiting out the retry (30 s here, up to 30 min in production)', async () => {
    const brand = await givenBrand(t.db);
    const advocate = await givenAdvocate(t.db, brand.brandId, { email: 'back@probe.example' });
    const real = { ...settings(smtp.url), retryScale: 1 };
    const probing = { ...deps, settings: real, transport: createMailTransport(real, '/nonexistent') };
    await convert(brand, advocate.code);
    await smtp.stop();
    try {
      await sendDue(brand.brandId, probing); // fails, then finds nothing due and probes the dead server
    } finally {
      await smtp.start();
    }
    const [waiting] = await messagesOf(brand.brandId);
    expect([waiting.status, waiting.attempts]).toEqual(['queued', 1]);
    expect(new Date(waiting.next_attempt_at).getTime()).toBeGreaterThan(Date.now() + 15_000);
    await new Promise((resolve) => setTimeout(resolve, real.workerIntervalMs * 30 + 100));
    await sendDue(brand.brandId, probing); // probes: the server answers, the message is due
    await sendDue(brand.brandId, probing);
    probing.transport.close();
    expect((await messagesOf(brand.brandId)).map((row) => [row.status, row.attempts])).toEqual([['sent', 2]]);
    expect(receivedBy('back@probe.example')).toHaveLength(1);
  });

  it('fails a message the server refuses for good (550 on the recipient) with its reason, and writes nothing more to that address', async () => {
    const brand = await givenBrand(t.db);
    const gone = await givenAdvocate(t.db, brand.brandId, { email: 'gone@bounce.example' });
    smtp.refuse.set('gone@bounce.example', 550);
    await convert(brand, gone.code);
    await sendDue(brand.brandId);
    const [failed] = await messagesOf(brand.brandId);
    expect([failed.status, failed.attempts]).toEqual(['failed', 1]);
    expect(failed.last_error).toMatch(/550/);
    expect(await t.db('mail_suppressions').where({ brand_id: brand.brandId }).pluck('reason')).toEqual(['bounced']);
    await convert(brand, gone.code);
    expect(await messagesOf(brand.brandId)).toHaveLength(1);
  });

  it('retries a message the server defers (450), and sends it once the server takes it', async () => {
    const brand = await givenBrand(t.db);
    const later = await givenAdvocate(t.db, brand.brandId, { email: 'later@defer.example' });
    smtp.refuse.set('later@defer.example', 450);
    await convert(brand, later.code);
    // One pass, not sendDue's loop: the retry comes due 24–36 ms later (MAIL_RETRY_SCALE 0.001), and
    // on a busy machine a second pass of the loop would already try it again.
    await deliverDueMail(deps, brand.brandId);
    const [deferred] = await messagesOf(brand.brandId);
    expect([deferred.status, deferred.attempts]).toEqual(['queued', 1]);
    expect(deferred.last_error).toMatch(/450/);
    smtp.refuse.delete('later@defer.example');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await sendDue(brand.brandId);
    expect((await messagesOf(brand.brandId)).map((row) => [row.status, row.attempts])).toEqual([['sent', 2]]);
  });

  it('two workers on one database send each message once', async () => {
    const brand = await givenBrand(t.db);
    for (let index = 0; index < 12; index += 1) {
      const advocate = await givenAdvocate(t.db, brand.brandId, { email: `a${index}@two-workers.example` });
      await convert(brand, advocate.code);
    }
    const second = { ...deps, transport: createMailTransport(settings(smtp.url), '/nonexistent') };
    await Promise.all([sendDue(brand.brandId), sendDue(brand.brandId, second)]);
    second.transport.close();
    const arrived = smtp.received.filter((mail) => /@two-workers\.example$/.test((mail.to as { text: string }).text));
    expect(arrived).toHaveLength(12);
    expect(new Set(arrived.map((mail) => mail.messageId)).size).toBe(12);
  });

  it('does not send again a message whose worker stopped mid-send: it is failed with the reason, for an operator to retry', async () => {
    const brand = await givenBrand(t.db);
    const advocate = await givenAdvocate(t.db, brand.brandId, { email: 'cut@interrupted.example' });
    await convert(brand, advocate.code);
    await t.db('mail_messages').where({ brand_id: brand.brandId }).update({ status: 'sending', attempts: 1, next_attempt_at: t.db.raw("now() - interval '1 second'") });
    await sendDue(brand.brandId);
    const [row] = await messagesOf(brand.brandId);
    expect(row.status).toBe('failed');
    expect(row.last_error).toMatch(/interrupted while sending/);
    expect(receivedBy('cut@interrupted.example')).toHaveLength(0);
    const retried = await runCli(['mail', 'retry', '--brand', brand.brandId, '--message', String(row.message_id), '--json'], { db: t.db, config: testConfig(), isTTY: false, progress: () => undefined });
    expect(retried.code).toBe(0);
    await sendDue(brand.brandId);
    expect(receivedBy('cut@interrupted.example')).toHaveLength(1);
  });

  it('stops without leaving a message half-handled: what a stopping worker took and did not begin goes back to the queue', async () => {
    const brand = await givenBrand(t.db, { reward_value: 1 });
    const slow = await givenAdvocate(t.db, brand.brandId, { email: 'slow@stop.example' });
    for (let index = 0; index < 5; index += 1) await convert(brand, slow.code);
    smtp.slowFor.set('slow@stop.example', 300);
    // This brand's alone: on a shared database the other files' rows are theirs.
    const worker = startMailWorker({ ...deps, brandId: brand.brandId, transport: createMailTransport(settings(smtp.url), '/nonexistent'), logger: pino({ level: 'silent' }) });
    const ours = () => smtp.received.filter((mail) => mail.messageId?.includes(brand.brandId));
    try {
      const deadline = Date.now() + 30_000;
      while (ours().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      await worker.stop();
    } finally {
      smtp.slowFor.clear();
    }
    const rows = await messagesOf(brand.brandId);
    const sent = rows.filter((row) => row.status === 'sent');
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(sent.length).toBeLessThan(5);
    expect(rows.filter((row) => row.status !== 'sent').map((row) => [row.status, row.attempts])).toEqual(Array(5 - sent.length).fill(['queued', 0]));
    await sendDue(brand.brandId);
    expect(ours()).toHaveLength(5);
  });
});

describe('what causes each program email', () => {
  const cli = (...argv: string[]) => runCli([...argv, '--json'], { db: t.db, config: testConfig({ publicUrl: PUBLIC_URL }), isTTY: false, progress: () => undefined });

  it('advocate create queues the welcome email with the code, the friend\'s offer and the share link', async () => {
    const brand = await givenBrand(t.db, { store_url: 'https://welcome.example', referee_discount_type: 'percentage', referee_discount_value: 15, referee_min_purchase: 50 });
    const created = await cli('advocate', 'create', '--brand', brand.brandId, '--email', 'new@welcome.example', '--first-name', 'Nia', '--code', 'NIA15');
    expect(created.code).toBe(0);
    await sendDue(brand.brandId);
    const [mail] = receivedBy('new@welcome.example');
    expect(mail!.subject).toBe(`Your ${await brandName(brand)} referral link is ready`);
    expect(mail!.text).toContain('Hi Nia,');
    expect(mail!.text).toContain('they get 15% off orders of $50.00 or more');
    expect(mail!.text).toContain('https://welcome.example/?ref=NIA15');
    expect(mail!.text).toContain('Your referral code: NIA15');
  });

  it('refuses an advocate whose address cannot receive mail (exit 2 naming --email), writing nothing', async () => {
    const brand = await givenBrand(t.db);
    for (const email of ['no-domain@', 'two@@example.com', 'dots..@example.com', 'ann@localhost', 'ann@example']) {
      const refused = await cli('advocate', 'create', '--brand', brand.brandId, '--email', email, '--first-name', 'X');
      expect([email, refused.code, refused.stderr]).toEqual([email, 2, expect.stringContaining('--email must be an email address')]);
    }
    expect(await messagesOf(brand.brandId)).toHaveLength(0);
  });

  it('refuses to queue a recipient that is not one address, naming email and writing nothing: enqueueMail and enqueueAccountMail given \'a@x\\r\\nBcc: b@x\', a list or a group (issue 39, 11)', async () => {
    const brand = await givenBrand(t.db);
    const advocate = await givenAdvocate(t.db, brand.brandId, { email: 'queued@rcpt.example' });
    for (const to of ['friend@rcpt.example\r\nBcc: bcc@rcpt.example', 'a@rcpt.example, b@rcpt.example', 'team: c@rcpt.example, d@rcpt.example;']) {
      const friend = t.db.transaction((trx) => enqueueMail(trx, [friendOfferMail(brand.brandId, { email: to, emailNormalized: to.toLowerCase() }, { advocateId: advocate.advocateId, code: advocate.code })]));
      await expect(friend).rejects.toThrow(new Invalid('email must be an address that can receive mail, like friend@example.com'));
      const signIn = t.db.transaction((trx) => enqueueAccountMail(trx, { brandId: brand.brandId, template: 'merchant_sign_in', to, dedupeKey: `sign-in:${to}`, link: 'https://referrals.example/x', secret: TEST_SECRET }));
      await expect(signIn).rejects.toThrow(Invalid);
    }
    expect(await messagesOf(brand.brandId)).toHaveLength(0);
  });

  it('sends reward_approved at once when the brand holds nothing, and after a hold when the merchant approves it', async () => {
    const brand = await givenBrand(t.db, { reward_hold_days: 0, reward_value: 7 });
    const advocate = await givenAdvocate(t.db, brand.brandId, { email: 'fay@approved.example' });
    await convert(brand, advocate.code);
    await updateBrand(t.db, brand.brandId, { reward_hold_days: 30 });
    await convert(brand, advocate.code);
    const held = await t.db('rewards').where({ brand_id: brand.brandId, status: 'pending' }).first('reward_id');
    const approved = await t.http.post(`/api/v1/rewards/${held.reward_id}/approve`).set(brand.headers).send({});
    expect(approved.status).toBe(200);
    expect((await messagesOf(brand.brandId)).map((row) => row.template)).toEqual(['reward_approved', 'reward_earned', 'reward_approved']);
  });

  it('writes reward_earned when a pending order is reported completed, and when a fraud review releases a held reward, once each', async () => {
    const brand = await givenBrand(t.db, { reward_value: 3, reward_hold_days: 10 });
    const advocate = await givenAdvocate(t.db, brand.brandId, { email: 'ida@upgrade.example' });
    const order = { email: 'buyer@upgrade.example', order_id: uniqueOrderId(), order_value: 40, referral_code: advocate.code };
    expect((await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ ...order, status: 'pending' })).status).toBe(201);
    expect(await messagesOf(brand.brandId)).toHaveLength(0); // nothing earned yet
    for (let time = 0; time < 2; time += 1) expect((await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ ...order, status: 'completed' })).status).toBe(200);
    const held = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'shopper@mailinator.com', order_id: uniqueOrderId(), order_value: 40, referral_code: advocate.code });
    expect(held.body.data.review?.status).toBe('open');
    expect((await messagesOf(brand.brandId)).map((row) => row.template)).toEqual(['reward_earned']); // the held one waits for its review
    expect((await t.http.post(`/api/v1/reviews/${held.body.data.review.review_id}/approve`).set(brand.headers).send({})).status).toBe(200);
    const rows = await messagesOf(brand.brandId);
    expect(rows.map((row) => [row.template, row.data.amount])).toEqual([['reward_earned', '3.00'], ['reward_earned', '3.00']]);
  });

  it('sends reward_paid when a payout is marked paid, once however often the file is recorded', async () => {
    const brand = await givenBrand(t.db, { reward_hold_days: 0, reward_value: 20 });
    const advocate = await givenAdvocate(t.db, brand.brandId, { email: 'gus@paid.example' });
    await convert(brand, advocate.code);
    const exported = await runCli(['payouts', 'export', '--brand', brand.brandId, '--csv'], { db: t.db, config: testConfig(), isTTY: false, progress: () => undefined });
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'paid-')), 'paid.csv');
    fs.writeFileSync(file, exported.stdout);
    for (let time = 0; time < 2; time += 1) expect((await cli('payouts', 'mark-paid', '--brand', brand.brandId, '--file', file)).code).toBe(0);
    const paid = (await messagesOf(brand.brandId)).filter((row) => row.template === 'reward_paid');
    expect(paid).toHaveLength(1);
    await sendDue(brand.brandId);
    expect(receivedBy('gus@paid.example').map((mail) => mail.subject)).toEqual(['Your $20.00 referral reward is ready', `${await brandName(brand)} paid you $20.00`]);
  });

  it('sends the friend their offer when an advocate refers them by email, once per friend and code', async () => {
    const brand = await givenBrand(t.db, { plan: 'premier', referee_discount_type: 'fixed', referee_discount_value: 10 });
    const advocate = await givenAdvocate(t.db, brand.brandId, { first_name: 'Hal', email: 'hal@friend.example', code: 'HAL10' });
    const claim = await t.http.post('/api/v1/track/claim').set(brand.headers).send({ email: 'Ivy@Friend.example', referral_code: 'hal10' });
    expect(claim.status).toBe(201);
    expect((await t.http.post('/api/v1/track/claim').set(brand.headers).send({ email: 'ivy@friend.example', referral_code: 'HAL10' })).status).toBe(409);
    const rows = await messagesOf(brand.brandId);
    expect(rows.map((row) => [row.template, row.recipient])).toEqual([['friend_offer', 'Ivy@Friend.example']]);
    await sendDue(brand.brandId);
    const [mail] = receivedBy('ivy@friend.example');
    expect(mail!.subject).toBe(`Hal sent you $10.00 off at ${await brandName(brand)}`);
    expect(mail!.text).toContain('Use the code HAL10 at checkout.');
  });

  it('refuses a claim for an address that cannot receive mail: 400 naming the field, nothing queued', async () => {
    const brand = await givenBrand(t.db, { plan: 'premier' });
    await givenAdvocate(t.db, brand.brandId, { code: 'JOY10' });
    for (const [field, value] of [['email', 'joy@example'], ['customer_email', 'joy@@example.com'], ['email', 'joy@exa mple.com']] as const) {
      const refused = await t.http.post('/api/v1/track/claim').set(brand.headers).send({ [field]: value, referral_code: 'JOY10' });
      expect([value, refused.status, refused.body.error]).toEqual([value, 400, expect.stringMatching(new RegExp(`^${field}`))]);
    }
    expect(await messagesOf(brand.brandId)).toHaveLength(0);
    expect(await t.db('claims').where({ brand_id: brand.brandId })).toHaveLength(0);
  });

  it('writes nothing for a template the brand switched off', async () => {
    const brand = await givenBrand(t.db);
    expect((await cli('brand', 'settings', '--brand', brand.brandId, '--email-reward-earned', 'no')).code).toBe(0);
    const advocate = await givenAdvocate(t.db, brand.brandId);
    await convert(brand, advocate.code);
    expect(await messagesOf(brand.brandId)).toHaveLength(0);
  });

  it('writes in the brand\'s language, with its own sender name', async () => {
    const brand = await givenBrand(t.db, { reward_value: 12.5, reward_hold_days: 14, currency: 'EUR' });
    expect((await cli('brand', 'settings', '--brand', brand.brandId, '--language', 'fr', '--sender-name', 'La Boutique')).code).toBe(0);
    const advocate = await givenAdvocate(t.db, brand.brandId, { first_name: 'Léa', email: 'lea@fr.example' });
    await convert(brand, advocate.code);
    await sendDue(brand.brandId);
    const [mail] = receivedBy('lea@fr.example');
    expect(mail!.from?.value[0]?.name).toBe('La Boutique');
    expect(mail!.subject).toBe('Vous avez gagné 12,50 € grâce à un parrainage');
    expect(mail!.text).toContain('Bonjour Léa,');
  });

  it('queues re-engagement for an advocate with no referral in N days, once per period, when the brand turned it on', async () => {
    const brand = await givenBrand(t.db);
    const quiet = await givenAdvocate(t.db, brand.brandId, { email: 'quiet@reengage.example' });
    const busy = await givenAdvocate(t.db, brand.brandId, { email: 'busy@reengage.example' });
    await t.db('advocates').where({ brand_id: brand.brandId }).update({ created_at: t.db.raw("now() - interval '40 days'") });
    await convert(brand, busy.code);
    const before = (await messagesOf(brand.brandId)).length;
    await queueReengagement(t.db);
    expect((await messagesOf(brand.brandId)).filter((row) => row.template === 'reengagement')).toHaveLength(0); // off by default
    expect((await cli('brand', 'settings', '--brand', brand.brandId, '--email-reengagement', 'yes', '--reengagement-days', '30')).code).toBe(0);
    await queueReengagement(t.db);
    await queueReengagement(t.db);
    const reengaged = (await messagesOf(brand.brandId)).filter((row) => row.template === 'reengagement');
    expect(reengaged.map((row) => Number(row.advocate_id))).toEqual([quiet.advocateId]);
    expect((await messagesOf(brand.brandId)).length).toBe(before + 1);
  });
});

describe('templates, previews and the list of emails', () => {
  const cli = (...argv: string[]) => runCli(argv, { db: t.db, config: testConfig({ publicUrl: PUBLIC_URL }), isTTY: false, progress: () => undefined });

  it('saves a merchant\'s own words over the API and sends them; an unknown placeholder is refused naming it', async () => {
    const brand = await givenBrand(t.db, { reward_value: 9 });
    const refused = await t.http.put('/api/v1/email-templates/reward_earned').set(brand.headers).send({ subject: 'Hi {{firstname}}', body: 'You got {{amount}}' });
    expect([refused.status, refused.body.error]).toEqual([400, expect.stringContaining('unknown placeholder {{firstname}}')]);
    const saved = await t.http.put('/api/v1/email-templates/reward_earned').set(brand.headers).send({ subject: '{{first_name}}, {{amount}} for you', body: 'Thanks!\n\n{{held_until}}' });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({ template: 'reward_earned', custom: true, enabled: true, updated_by: `api_key:${brand.keyId}` });
    const advocate = await givenAdvocate(t.db, brand.brandId, { first_name: 'Kai', email: 'kai@custom.example' });
    await convert(brand, advocate.code);
    await sendDue(brand.brandId);
    expect(receivedBy('kai@custom.example')[0]!.subject).toBe('Kai, $9.00 for you');
    const reset = await t.http.delete('/api/v1/email-templates/reward_earned').set(brand.headers);
    expect(reset.body.data).toMatchObject({ custom: false, subject: 'You earned {{amount}} from a referral' });
    expect((await t.http.put('/api/v1/email-templates/nope').set(brand.headers).send({ subject: 'x', body: 'y' })).status).toBe(404);
  });

  it('sends a saved template as text: <script>, <img>, a form and <a href> in its body are words, not markup, and a URL as first name is no link (issue 39, 3 and 4)', async () => {
    const brand = await givenBrand(t.db, { store_url: 'https://shop.example' });
    const body = [
      'Hi {{first_name}} <script>alert(1)</script>',
      '<img src="https://tracker.example/p.gif" onerror="alert(2)">',
      '<form action="https://phish.example/login"><input name="password"></form>',
      '<a href="https://phish.example/win">Claim your prize</a> or visit https://typed.example/sale',
      '{{share_link}}',
    ].join('\n\n');
    expect((await t.http.put('/api/v1/email-templates/advocate_welcome').set(brand.headers).send({ subject: 'Welcome {{first_name}}', body })).status).toBe(200);
    const created = await t.http.post('/api/v1/advocates').set(brand.headers).send({ email: 'markup@template.example', first_name: 'https://evil.example/win', code: 'MARKUP1' });
    expect(created.status).toBe(201);
    await sendDue(brand.brandId);
    const [mail] = receivedBy('markup@template.example');
    const share = 'https://shop.example/?ref=MARKUP1';
    const links = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map(([, href]) => href!.replace(/&amp;/g, '&'));
    const elements = (html: string) => new Set([...html.matchAll(/<([a-z][a-z0-9-]*)/gi)].map(([, name]) => name!.toLowerCase()));
    for (const html of [mail!.html as string, (await cli('mail', 'preview', '--brand', brand.brandId, '--template', 'advocate_welcome', '--part', 'html')).stdout]) {
      expect([...elements(html)].filter((name) => !['html', 'head', 'meta', 'title', 'body', 'table', 'tr', 'td', 'p', 'a', 'br'].includes(name))).toEqual([]);
      expect(links(html).filter((href) => !href.startsWith('https://referrals.example/mail/unsubscribe/'))).toEqual([expect.stringMatching(/^https:\/\/shop\.example\/\?ref=/), expect.stringMatching(/^https:\/\/shop\.example\/\?ref=/)]);
      expect(html).toContain('&lt;a href=&quot;https://phish.example/win&quot;&gt;Claim your prize&lt;/a&gt; or visit https://typed.example/sale');
    }
    expect(links(mail!.html as string)).toContain(share);
    expect(mail!.html).toContain('Hi https://evil.example/win &lt;script&gt;');
    expect(mail!.subject).toBe('Welcome https://evil.example/win');
  });

  it('switches an email off and on over the API (PATCH), and changes its subject alone', async () => {
    const brand = await givenBrand(t.db);
    const off = await t.http.patch('/api/v1/email-templates/reward_earned').set(brand.headers).send({ enabled: false });
    expect([off.status, off.body.data.enabled, off.body.data.custom]).toEqual([200, false, false]);
    const advocate = await givenAdvocate(t.db, brand.brandId);
    await convert(brand, advocate.code);
    expect(await messagesOf(brand.brandId)).toHaveLength(0);
    const on = await t.http.patch('/api/v1/email-templates/reward_earned').set(brand.headers).send({ enabled: true, subject: 'Nice one, {{first_name}}' });
    expect(on.body.data).toMatchObject({ enabled: true, custom: true, subject: 'Nice one, {{first_name}}', body: expect.stringContaining('{{held_until}}') });
    await convert(brand, advocate.code);
    expect((await messagesOf(brand.brandId)).map((row) => row.template)).toEqual(['reward_earned']);
    const empty = await t.http.patch('/api/v1/email-templates/reward_earned').set(brand.headers).send({});
    expect([empty.status, empty.body.error]).toEqual([400, 'body: name at least one of enabled, subject, body']);
    const wrong = await t.http.patch('/api/v1/email-templates/reward_earned').set(brand.headers).send({ enabled: 'no' });
    expect([wrong.status, wrong.body.error]).toEqual([400, expect.stringMatching(/^enabled/)]);
  });

  it('the CLI saves a template, refusing an unknown placeholder (exit 1 naming it), and previews it with sample data', async () => {
    const brand = await givenBrand(t.db);
    const refused = await cli('mail', 'template', '--brand', brand.brandId, '--template', 'friend_offer', '--subject', 'From {{first_name}}');
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining('unknown placeholder {{first_name}} in friend_offer')]);
    expect((await cli('mail', 'template', '--brand', brand.brandId, '--template', 'friend_offer', '--subject', '{{advocate_first_name}} says hi')).code).toBe(0);
    const preview = await cli('mail', 'preview', '--brand', brand.brandId, '--template', 'friend_offer', '--json');
    expect(JSON.parse(preview.stdout)).toMatchObject({ template: 'friend_offer', custom: true, subject: 'Alex says hi' });
    const html = await cli('mail', 'preview', '--brand', brand.brandId, '--template', 'reward_earned', '--part', 'html');
    expect(html.stdout).toMatch(/^<!doctype html>/);
  });

  it('lists the brand\'s emails over the API and the CLI, newest first, filtered by status', async () => {
    const brand = await givenBrand(t.db);
    const other = await givenBrand(t.db);
    for (const email of ['l1@list.example', 'l2@list.example']) await convert(brand, (await givenAdvocate(t.db, brand.brandId, { email })).code);
    await convert(other, (await givenAdvocate(t.db, other.brandId)).code);
    smtp.refuse.set('l1@list.example', 550);
    await sendDue(brand.brandId);
    const listed = await t.http.get('/api/v1/emails').set(brand.headers);
    expect(listed.body.data.map((row: { to: string; status: string }) => [row.to, row.status])).toEqual([['l2@list.example', 'sent'], ['l1@list.example', 'failed']]);
    const failed = await t.http.get('/api/v1/emails?status=failed').set(brand.headers);
    expect(failed.body.data).toEqual([expect.objectContaining({ to: 'l1@list.example', template: 'reward_earned', last_error: expect.stringContaining('550') })]);
    expect((await t.http.get('/api/v1/emails?status=lost').set(brand.headers)).body.error).toMatch(/^status/);
    const cliList = JSON.parse((await cli('mail', 'list', '--brand', brand.brandId, '--status', 'sent', '--json')).stdout);
    expect(cliList.messages.map((row: { to: string }) => row.to)).toEqual(['l2@list.example']);
  });
});

describe('without SMTP_URL', () => {
  it('writes each message whole as an .eml file under DATA_DIR/mail/', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mail-files-'));
    const files = { ...deps, transport: createMailTransport(settings(null), dataDir), settings: settings(null) };
    const brand = await givenBrand(t.db, { store_url: 'https://files.example' });
    await t.db.transaction((trx) => enrollAdvocate(trx, brand.brandId, { email: 'file@eml.example', first_name: 'Eli', code: 'ELI5' }));
    await sendDue(brand.brandId, files);
    const written = fs.readdirSync(path.join(dataDir, 'mail'));
    expect(written).toEqual([expect.stringMatching(/advocate_welcome-\d+\.eml$/)]);
    const eml = fs.readFileSync(path.join(dataDir, 'mail', written[0]!), 'utf8');
    expect(eml).toMatch(/^To: file@eml\.example$/m);
    expect(eml).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    expect((await messagesOf(brand.brandId))[0].status).toBe('sent');
  });
});

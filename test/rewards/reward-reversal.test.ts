import { Webhook } from 'standardwebhooks';
import { runCli } from '../../server/cli/run-cli';
import { type MailDeps, deliverDueMail } from '../../server/mail/deliver-mail';
import type { MailSettings } from '../../server/mail/mail-settings';
import { createMailTransport } from '../../server/mail/mail-transport';
import { deliverDueWebhooks } from '../../server/webhooks/deliver-webhooks';
import type { WebhookSettings } from '../../server/webhooks/webhook-settings';
import { signedInAgent } from '../dashboard/dashboard-helpers';
import { type TestBrand, givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type RealPostgres, realPostgres } from '../helpers/real-postgres';
import { TEST_SECRET, type TestApp, startTestApp, testConfig } from '../helpers/test-app';
import { type SmtpReceiver, startSmtpReceiver } from '../mail/smtp-receiver';
import { type Receiver, startReceiver } from '../webhooks/receiver';

/**
 * Issue 40, the reversal half: an advocate emailed "approved" and "paid" then saw `balance -10.00`
 * and `approved, not paid out -10.00` after a refund, with no email. Now the refund tells them
 * (reward_reversed, reward.reversed) and every figure shows the money as owed.
 */

const PUBLIC_URL = 'https://referrals.example';
const WEBHOOKS: WebhookSettings = { allowPrivate: true, timeoutMs: 2_000, workerIntervalMs: 50, retryScale: 0.001, disableAfterFailures: 50, disableAfterDays: 5 };
const MAIL: MailSettings = { smtpUrl: null, from: 'program@shop.example', workerIntervalMs: 50, sendTimeoutMs: 20_000, retryScale: 0.001 };

let postgres: RealPostgres;
let t: TestApp;
let smtp: SmtpReceiver;
let mail: MailDeps;
let hook: Receiver;

beforeAll(async () => {
  // A database of its own: another file's server would run its own webhook and mail workers on a shared one.
  postgres = await realPostgres({ ownDatabase: true });
  t = await startTestApp({ webhooks: WEBHOOKS, publicUrl: PUBLIC_URL }, postgres.db);
  smtp = await startSmtpReceiver();
  const settings = { ...MAIL, smtpUrl: smtp.url };
  mail = { db: t.db, transport: createMailTransport(settings, '/nonexistent'), settings, publicUrl: PUBLIC_URL, secret: TEST_SECRET };
  hook = await startReceiver();
});
afterAll(async () => {
  mail?.transport.close();
  await smtp?.stop();
  await hook?.close();
  await postgres?.close();
});

const cli = (...argv: string[]) => runCli([...argv, '--json'], { db: t.db, config: testConfig({ publicUrl: PUBLIC_URL }), isTTY: false, progress: () => undefined });
const messagesOf = (brandId: string) => t.db('mail_messages').where({ brand_id: brandId }).orderBy('message_id');
const receivedBy = (address: string) => smtp.received.filter((sent) => sent.to && !Array.isArray(sent.to) && sent.to.value[0]?.address?.toLowerCase() === address);

async function sendDue(brandId: string): Promise<void> {
  while ((await deliverDueMail(mail, brandId)) > 0);
}

async function convert(brand: TestBrand, code: string, orderValue: number, email = `friend-${uniqueOrderId()}@example.com`) {
  const orderId = uniqueOrderId();
  const sent = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email, order_id: orderId, order_value: orderValue, referral_code: code });
  expect(sent.status).toBe(201);
  return { orderId, conversion: sent.body.data };
}

const refund = (brand: TestBrand, body: object) => t.http.post('/api/v1/track/refund').set(brand.headers).send(body);
const balanceOf = async (brand: TestBrand, advocateId: number) => (await t.http.get(`/api/v1/advocates/${advocateId}/balance`).set(brand.headers)).body.data;

/** Pays every advocate what the brand's payouts list says, over REST. */
async function payAll(brand: TestBrand): Promise<void> {
  const listed = await t.http.get('/api/v1/payouts').set(brand.headers);
  const payouts = listed.body.data.payouts.map(({ payout_id, advocate_id, amount }: { payout_id: string; advocate_id: number; amount: number }) => ({ payout_id, advocate_id, amount }));
  expect((await t.http.post('/api/v1/payouts/mark-paid').set(brand.headers).send({ payouts })).status).toBe(200);
}

describe('a refund that takes a reward back', () => {
  it('after a payout: the advocate is emailed what was taken back and what they owe, reward.reversed says it, and REST, the CLI, the dashboard and Payouts show 10.00 owed (never a negative approved); the next 15.00 reward pays it off and leaves 5.00 payable', async () => {
    const brand = await givenBrand(t.db, { plan: 'premier', name: 'Owed Goods', reward_type: 'percentage', reward_value: 10, reward_hold_days: 0 });
    const ann = await givenAdvocate(t.db, brand.brandId, { first_name: 'Ann', email: 'ann@owed.example' });
    const endpoint = (await t.http.post('/api/v1/webhook-endpoints').set(brand.headers).send({ url: hook.url, events: ['reward.reversed'] })).body.data as { secret: string };
    const { orderId } = await convert(brand, ann.code, 100);
    await payAll(brand);

    const refunded = await refund(brand, { order_id: orderId, refund_amount: 100, is_full_refund: true, refund_id: 'rf-1' });
    expect(refunded.status).toBe(200);
    expect(refunded.body.data.reward_reversed).toBe(10);

    // The email, through a real SMTP server, after "approved" and "paid".
    expect((await messagesOf(brand.brandId)).map((row) => row.template)).toEqual(['reward_approved', 'reward_paid', 'reward_reversed']);
    await sendDue(brand.brandId);
    const mails = receivedBy('ann@owed.example');
    expect(mails.map((sent) => sent.subject)).toEqual(['Your $10.00 referral reward is ready', 'Owed Goods paid you $10.00', 'A refund took back $10.00 of your referral reward']);
    const reversal = mails[2]!;
    expect(reversal.text).toContain('Hi Ann,');
    expect(reversal.text).toContain('The $100.00 order a friend you referred placed with Owed Goods on ');
    expect(reversal.text).toContain('was refunded, so $10.00 of your reward for it was taken back.');
    expect(reversal.text).toContain('You now owe $10.00: it will be taken from your next rewards.');
    expect(reversal.text).not.toMatch(/\{\{|\}\}|rf-1/);

    // The webhook, delivered and signed.
    for (let pass = 0; pass < 50 && hook.received.length === 0; pass += 1) {
      await deliverDueWebhooks({ db: t.db, encryptionSecret: TEST_SECRET, settings: WEBHOOKS }, brand.brandId);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const [event] = hook.received.map((request) => new Webhook(endpoint.secret).verify(request.body, request.headers) as { type: string; data: object });
    expect(event).toEqual({ id: expect.any(String), type: 'reward.reversed', timestamp: expect.any(String), data: {
      advocate_id: ann.advocateId, conversion_id: refunded.body.data.conversion_id, amount: 10, refund_id: 'rf-1', order_id: orderId, currency: 'USD', owed: 10,
    } });

    // REST: owed, with the old fields as they were (approved is the ledger's sum).
    expect(await balanceOf(brand, ann.advocateId)).toMatchObject({ balance: -10, approved: -10, paid: 10, payable: 0, owed: 10 });
    // CLI
    const cliBalance = await cli('advocate', 'balance', '--brand', brand.brandId, '--advocate', String(ann.advocateId));
    expect(JSON.parse(cliBalance.stdout)).toMatchObject({ owed: 10, payable: 0 });
    // The merchant's advocate page and Payouts.
    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const page = (await agent.get(`/dashboard/advocates/${ann.advocateId}`)).text;
    expect(page).toContain('Owes 10.00 USD from a refunded order; taken from their next rewards.');
    expect(page).toMatch(/data-metric="balance">0\.00 USD</);
    expect(page).toMatch(/data-metric="approved">0\.00 USD</);
    expect(page).toMatch(/data-metric="owed">10\.00 USD</);
    expect(page.slice(page.indexOf('<dl class="cards">'), page.indexOf('</dl>', page.indexOf('<dl class="cards">')))).not.toMatch(/[-−]\d/); // the figures; the ledger's entries below are signed
    const list = (await agent.get('/dashboard/advocates')).text;
    expect(list).toContain('<td class="num">0.00</td><td class="num">0.00</td><td class="num">10.00</td></tr>'); // balance, pending, owed
    expect(list).not.toMatch(/[-−]10\.00/);
    const payouts = (await agent.get('/dashboard/payouts')).text;
    expect(payouts).toContain('Nothing to pay');
    expect(payouts).toContain('Owed by advocates');
    expect(payouts).toMatch(new RegExp(`${ann.advocateId}</a></td><td class="num">10\\.00</td><td>Owes 10\\.00 USD from a refunded order; taken from their next rewards\\.\\s*</td><td>ann@owed\\.example</td>`));
    const listed = (await t.http.get('/api/v1/payouts').set(brand.headers)).body.data;
    expect([listed.payouts, listed.owed]).toEqual([[], [{ advocate_id: ann.advocateId, email: 'ann@owed.example', code: ann.code, currency: 'USD', amount: 10 }]]);

    // The next reward pays the owed money off first.
    await convert(brand, ann.code, 150);
    expect(await balanceOf(brand, ann.advocateId)).toMatchObject({ balance: 5, payable: 5, owed: 0 });
    const after = (await t.http.get('/api/v1/payouts').set(brand.headers)).body.data;
    expect([after.payouts.map((line: { amount: number }) => line.amount), after.owed]).toEqual([[5], []]);
  });

  it('during the hold: an advocate told "earned" hears of each refund once (two refunds of one order, one repeated), without an owed line; an in-review reward and a brand with the email off write none', async () => {
    const brand = await givenBrand(t.db, { reward_type: 'percentage', reward_value: 10, reward_hold_days: 30 });
    const bea = await givenAdvocate(t.db, brand.brandId, { first_name: 'Bea', email: 'bea@held.example' });
    const { orderId } = await convert(brand, bea.code, 100);
    for (const body of [{ refund_id: 'r-1', refund_amount: 40 }, { refund_id: 'r-1', refund_amount: 40 }, { refund_id: 'r-2', refund_amount: 60 }]) {
      expect((await refund(brand, { order_id: orderId, is_full_refund: false, ...body })).status).toBe(200);
    }
    const rows = await messagesOf(brand.brandId);
    expect(rows.map((row) => [row.template, row.data.amount ?? null])).toEqual([['reward_earned', '10.00'], ['reward_reversed', '4.00'], ['reward_reversed', '6.00']]);
    await sendDue(brand.brandId);
    const [, first, second] = receivedBy('bea@held.example');
    expect([first!.subject, second!.subject]).toEqual(['A refund took back $4.00 of your referral reward', 'A refund took back $6.00 of your referral reward']);
    expect(first!.text).not.toContain('owe');

    // Held for fraud review: never told "earned", so not told of its refund.
    const review = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'shopper@mailinator.com', order_id: 'held-review', order_value: 50, referral_code: bea.code });
    expect(review.body.data.review?.status).toBe('open');
    expect((await refund(brand, { order_id: 'held-review', refund_amount: 50, is_full_refund: true })).status).toBe(200);
    // Switched off (the CLI's flag): nothing written.
    expect((await cli('brand', 'settings', '--brand', brand.brandId, '--email-reward-reversed', 'no')).code).toBe(0);
    const { orderId: another } = await convert(brand, bea.code, 100);
    expect((await refund(brand, { order_id: another, refund_amount: 100, is_full_refund: true })).status).toBe(200);
    expect((await messagesOf(brand.brandId)).filter((row) => row.template === 'reward_reversed')).toHaveLength(2);
  });

  it('the advocate\'s own figures (GET /api/v1/advocates/by-email, what the Medusa /me page and the Shopify app proxy page show) carry owed, and approved never below zero', async () => {
    const brand = await givenBrand(t.db, { reward_type: 'fixed', reward_value: 10, reward_hold_days: 0 });
    const cy = await givenAdvocate(t.db, brand.brandId, { email: 'cy@owed.example' });
    const { orderId } = await convert(brand, cy.code, 100);
    await payAll(brand);
    expect((await refund(brand, { order_id: orderId, refund_amount: 100, is_full_refund: true })).status).toBe(200);
    const mine = await t.http.get('/api/v1/advocates/by-email').query({ email: 'cy@owed.example' }).set(brand.headers);
    expect(mine.body.data.rewards).toEqual({ currency: 'USD', held: 0, approved: 0, paid: 10, owed: 10 });
  });

  it('is editable like the other emails: a merchant\'s own words with {{order_value}} and {{owed_note}} are sent in French; {{order_id}} is refused naming it', async () => {
    const brand = await givenBrand(t.db, { name: 'Maison', currency: 'EUR', reward_type: 'fixed', reward_value: 8, reward_hold_days: 0, language: 'fr' });
    const lea = await givenAdvocate(t.db, brand.brandId, { first_name: 'Léa', email: 'lea@owed.example' });
    const refused = await t.http.put('/api/v1/email-templates/reward_reversed').set(brand.headers).send({ subject: 'Commande {{order_id}}', body: '{{amount}}' });
    expect([refused.status, refused.body.error]).toEqual([400, expect.stringContaining('subject: unknown placeholder {{order_id}} in reward_reversed')]);
    const saved = await t.http.put('/api/v1/email-templates/reward_reversed').set(brand.headers).send({ subject: '{{first_name}} : {{amount}} repris', body: 'Commande de {{order_value}} remboursée.\n\n{{owed_note}}' });
    expect(saved.status).toBe(200);
    const { orderId } = await convert(brand, lea.code, 40);
    await payAll(brand);
    expect((await refund(brand, { order_id: orderId, refund_amount: 40, is_full_refund: true })).status).toBe(200);
    await sendDue(brand.brandId);
    const sent = receivedBy('lea@owed.example').at(-1)!;
    // French puts a no-break space before € (and before the colon): \s matches it.
    expect(sent.subject).toMatch(/^Léa\s:\s8,00\s€ repris$/);
    expect(sent.text).toMatch(/Commande de 40,00\s€ remboursée\./);
    expect(sent.text).toMatch(/Vous devez maintenant 8,00\s€ : ce montant sera déduit de vos prochaines récompenses\./);
  });

  it('the OpenAPI document gives the balance answer\'s shape, owed described, from the zod schema the figures are typed by', async () => {
    const { paths } = (await t.http.get('/api/v1/openapi.json')).body;
    const data = paths['/api/v1/advocates/{id}/balance'].get.responses['200'].content['application/json'].schema.properties.data;
    expect(Object.keys(data.properties)).toEqual(['advocate_id', 'currency', 'credited', 'reversed', 'redeemed', 'balance', 'pending', 'approved', 'paid', 'issued', 'voided', 'payable', 'owed']);
    expect(data.properties.owed).toEqual({ type: 'number', description: expect.stringContaining('What the advocate owes') });
    expect(data.properties.approved.description).toContain('below zero when refunds took back money already paid out or issued (see owed)');
  });
});

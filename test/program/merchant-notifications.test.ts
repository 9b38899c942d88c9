import type { Knex } from 'knex';
import supertest from 'supertest';
import { enqueueDigests, enqueueReviewAlerts } from '../../core/accounts/merchant-notices';
import { decryptSecret } from '../../core/brands/key-encryption';
import { afterAnswerSettled } from '../../server/after-answer';
import { csrfTokenOf, signedInAgent } from '../dashboard/dashboard-helpers';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { TEST_SECRET, type TestApp, startTestApp } from '../helpers/test-app';
import { captureMail } from '../mail/mail-capture';

/**
 * Issue 41: nothing told a merchant that the program needed them. Owners and admins get a daily
 * digest (on by default, off in Account), and, if they ask, an email as soon as a fraud review
 * waits; both through the mail outbox, read here as a real SMTP server receives them.
 */

let t: TestApp;
let counter = 0;
const uniqueEmail = (name: string) => `${name}-${Date.now()}-${++counter}@team.example`;

beforeAll(async () => {
  t = await startTestApp();
});
const mail = captureMail(() => t.db);
const sendDue = mail.sendDue;
/** The notices (not the invitation) an address received. */
const receivedBy = (email: string) => mail.receivedBy(email).filter((received) => /referrals:/.test(received.subject ?? ''));

/** The operator invites `role` users; each signs in by the emailed link (a browser-like agent). */
async function teamOf(brandId: string, roles: Array<'owner' | 'admin' | 'viewer'>) {
  const operator = await signedInAgent(t.app, t.db, brandId);
  const csrf = csrfTokenOf((await operator.get('/dashboard/team')).text);
  const people = [];
  for (const role of roles) {
    const email = uniqueEmail(role);
    expect((await operator.post('/dashboard/team/invite').type('form').send({ csrf_token: csrf, email, role })).status).toBe(303);
    people.push({ role, email, agent: await signInByLink(t.db, email) });
  }
  return people;
}

async function signInByLink(db: Knex, email: string) {
  await afterAnswerSettled(t.app);
  const row = await db('mail_messages').where({ recipient_normalized: email.toLowerCase(), template: 'merchant_invitation' }).first();
  const data = typeof row.data === 'string' ? JSON.parse(row.data) : row.data;
  const link = new URL(decryptSecret(data.link_sealed, TEST_SECRET));
  const agent = supertest.agent(t.app.callback());
  await agent.get(`${link.pathname}${link.search}`);
  expect((await agent.post('/dashboard/login').type('form').send({ brand: link.searchParams.get('brand'), token: link.searchParams.get('token') })).status).toBe(303);
  return agent;
}

describe('the daily digest to owners and admins', () => {
  it('tells each owner and admin (not a viewer) the day\'s new advocates, referred orders and reviews waiting, with links; once a day; none on a quiet day', async () => {
    const brand = await givenBrand(t.db, { name: 'Northwind', reward_type: 'fixed', reward_value: 10, reward_hold_days: 30, fraud_disposable_email: true });
    const [owner, admin, viewer] = await teamOf(brand.brandId, ['owner', 'admin', 'viewer']);
    const quiet = await givenBrand(t.db, { name: 'Quiet' });
    const [quietOwner] = await teamOf(quiet.brandId, ['owner']);
    const ann = await givenAdvocate(t.db, brand.brandId);
    for (const email of ['friend@example.com', 'deal@mailinator.com']) {
      expect((await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email, order_id: uniqueOrderId(), order_value: 80, referral_code: ann.code })).status).toBe(201);
    }

    const now = new Date();
    expect(await enqueueDigests(t.db, now, { brandId: brand.brandId })).toBe(2);
    expect(await enqueueDigests(t.db, now, { brandId: brand.brandId })).toBe(0);
    expect(await enqueueDigests(t.db, now, { brandId: quiet.brandId })).toBe(0);
    await sendDue(brand.brandId);
    await sendDue(quiet.brandId);

    expect(receivedBy(viewer!.email)).toHaveLength(0);
    expect(receivedBy(quietOwner!.email)).toHaveLength(0);
    for (const person of [owner!, admin!]) {
      const [mail] = receivedBy(person.email).filter((received) => /referrals:/.test(received.subject ?? ''));
      expect(mail!.subject).toBe('Northwind referrals: 1 new advocate joined, 2 referred orders…');
      expect(mail!.text).toContain('- 1 new advocate joined: https://referrals.example/dashboard/advocates');
      expect(mail!.text).toContain('- 2 referred orders: https://referrals.example/dashboard/activity');
      expect(mail!.text).toContain('- 1 order waits for your fraud review: https://referrals.example/dashboard/reviews');
      expect(mail!.text).toContain('- 1 reward is on hold (you may approve it early)');
      expect(mail!.text).toContain('Turn it off in your account: https://referrals.example/dashboard/account');
      expect(mail!.text).not.toMatch(/referrals (dashboard|brand)|npx/);
    }
  });

  it('stops for a person who turns it off in Account (audited), and an alert on a waiting review reaches one who turns that on — once per review', async () => {
    const brand = await givenBrand(t.db, { name: 'Fjord', reward_type: 'fixed', reward_value: 10, fraud_disposable_email: true });
    const [owner, admin] = await teamOf(brand.brandId, ['owner', 'admin']);
    const account = await owner!.agent.get('/dashboard/account');
    expect(account.text).toMatch(/<input type="checkbox" name="digest_email" checked>/);
    expect(account.text).toMatch(/<input type="checkbox" name="review_alert_email">/);
    const saved = await owner!.agent.post('/dashboard/account/notifications').type('form').send({ csrf_token: csrfTokenOf(account.text), review_alert_email: 'on' });
    expect(saved.status).toBe(303);
    expect((await owner!.agent.get(saved.headers.location!)).text).toContain('Your email choices are saved.');
    const forged = await admin!.agent.post('/dashboard/account/notifications').type('form').send({ review_alert_email: 'on' });
    expect(forged.status).toBe(403);
    expect(await t.db('audit_log').where({ brand_id: brand.brandId, action: 'user.notifications' })).toEqual([
      expect.objectContaining({ actor: owner!.email, before: { digest_email: true, review_alert_email: false }, after: { digest_email: false, review_alert_email: true } }),
    ]);

    const ann = await givenAdvocate(t.db, brand.brandId);
    const orderId = uniqueOrderId();
    const held = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'deal@mailinator.com', order_id: orderId, order_value: 80, referral_code: ann.code });
    expect(held.body.data.review?.status).toBe('open');
    expect(await enqueueReviewAlerts(t.db, { brandId: brand.brandId })).toBe(1);
    expect(await enqueueReviewAlerts(t.db, { brandId: brand.brandId })).toBe(0);
    expect(await enqueueDigests(t.db, new Date(), { brandId: brand.brandId })).toBe(1);
    await sendDue(brand.brandId);

    const ownerMail = receivedBy(owner!.email).filter((mail) => /referrals:/.test(mail.subject ?? ''));
    expect(ownerMail.map((mail) => mail.subject)).toEqual(['Fjord referrals: an order waits for your review']);
    expect(ownerMail[0]!.text).toContain(`Order ${orderId} was held for a fraud review: approve it or reject it.: https://referrals.example/dashboard/reviews`);
    // The admin kept the digest and never asked for alerts; the owner turned the digest off.
    const adminNotices = receivedBy(admin!.email).map((mail) => mail.subject).filter((subject) => /referrals:/.test(subject ?? ''));
    expect(adminNotices).toEqual([expect.stringMatching(/^Fjord referrals: 1 new advocate joined, 1 referred order/)]);
  });
});

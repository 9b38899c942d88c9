import supertest from 'supertest';
import { decryptSecret } from '../../core/brands/key-encryption';
import { suppressAddress } from '../../core/mail/suppressions';
import { afterAnswerSettled } from '../../server/after-answer';
import { csrfTokenOf, signedInAgent } from './dashboard-helpers';
import { type TestBrand, givenBrand } from '../helpers/fixtures';
import { TEST_SECRET, type TestApp, startTestApp } from '../helpers/test-app';
import { captureMail } from '../mail/mail-capture';

/**
 * Issue 41: the dashboard only had on/off switches for the program's emails. The Emails page edits
 * each one with a preview in the brand's language, sends a test to the merchant, resets to the
 * default, shows what was sent with a retry of a failed one, and the addresses that get none.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
const mail = captureMail(() => t.db);
let counter = 0;

/** A brand and an admin of it, signed in by their emailed invitation (an address to send a test to). */
async function adminOf(settings: object = {}): Promise<{ brand: TestBrand; email: string; agent: supertest.Agent; csrf: string }> {
  const brand = await givenBrand(t.db, settings);
  const operator = await signedInAgent(t.app, t.db, brand.brandId);
  const email = `admin-${Date.now()}-${++counter}@team.example`;
  await operator.post('/dashboard/team/invite').type('form').send({ csrf_token: csrfTokenOf((await operator.get('/dashboard/team')).text), email, role: 'admin' });
  await afterAnswerSettled(t.app);
  const row = await t.db('mail_messages').where({ brand_id: brand.brandId, template: 'merchant_invitation', recipient_normalized: email }).first();
  const link = new URL(decryptSecret((typeof row.data === 'string' ? JSON.parse(row.data) : row.data).link_sealed, TEST_SECRET));
  const agent = supertest.agent(t.app.callback());
  await agent.get(`${link.pathname}${link.search}`);
  await agent.post('/dashboard/login').type('form').send({ brand: link.searchParams.get('brand'), token: link.searchParams.get('token') });
  const page = await agent.get('/dashboard/emails');
  return { brand, email, agent, csrf: csrfTokenOf(page.text) };
}

describe('the Emails page', () => {
  it('lists every email in words, edits one with a preview of what was typed (saved only on Save, audited), refuses an unknown placeholder beside its field, and goes back to the default behind a confirmation', async () => {
    const { brand, agent, csrf } = await adminOf({ name: 'Fjord', language: 'de' });
    const list = await agent.get('/dashboard/emails');
    expect(list.text).toContain('>Reward approved</a>');
    expect(list.text).not.toMatch(/>reward_approved</);
    const page = await agent.get('/dashboard/emails/reward_approved');
    expect(page.text).toContain('data-field="preview-subject"');
    expect(page.text).toMatch(/Alex/); // the sample advocate, in the brand's language

    const typed = { csrf_token: csrf, subject: 'Gut gemacht, {{first_name}}!', body: 'Ihre Prämie von {{amount}} ist freigegeben.' };
    const preview = await agent.post('/dashboard/emails/reward_approved').type('form').send({ ...typed, action: 'preview' });
    expect(preview.status).toBe(200);
    expect(preview.text).toContain('data-field="preview-subject">Gut gemacht, Alex!<');
    expect(preview.text).toContain('Preview of what you typed: not saved yet.');
    expect(await t.db('mail_templates').where({ brand_id: brand.brandId })).toEqual([]);

    const refused = await agent.post('/dashboard/emails/reward_approved').type('form').send({ ...typed, subject: 'Hi {{nickname}}', action: 'save' });
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/id="email-subject-error">Subject: unknown placeholder \{\{nickname\}\}/);
    expect(refused.text).toContain('value="Hi {{nickname}}"');

    const saved = await agent.post('/dashboard/emails/reward_approved').type('form').send({ ...typed, action: 'save' });
    expect(saved.status).toBe(303);
    expect(await t.db('mail_templates').where({ brand_id: brand.brandId }).first()).toMatchObject({ subject: 'Gut gemacht, {{first_name}}!' });
    expect(await t.db('audit_log').where({ brand_id: brand.brandId, action: 'email_template.update' })).toHaveLength(1);

    const unconfirmed = await agent.post('/dashboard/emails/reward_approved/reset').type('form').send({ csrf_token: csrf });
    expect(unconfirmed.status).toBe(400);
    expect(await t.db('mail_templates').where({ brand_id: brand.brandId })).toHaveLength(1);
    expect((await agent.post('/dashboard/emails/reward_approved/reset').type('form').send({ csrf_token: csrf, confirm: 'yes' })).status).toBe(303);
    expect(await t.db('mail_templates').where({ brand_id: brand.brandId })).toEqual([]);
    expect((await agent.get('/dashboard/emails/nothing_like_this')).status).toBe(404);
  });

  it('sends a test of the saved words to the signed-in merchant through the outbox (a real SMTP server), marked [Test], once a minute', async () => {
    const { brand, email, agent, csrf } = await adminOf({ name: 'Northwind' });
    const sent = await agent.post('/dashboard/emails/advocate_welcome/test').type('form').send({ csrf_token: csrf });
    expect(sent.status).toBe(303);
    expect((await agent.get(sent.headers.location!)).text).toContain('A test is on its way to your address.');
    const again = await agent.post('/dashboard/emails/advocate_welcome/test').type('form').send({ csrf_token: csrf });
    expect([again.status, again.text.includes('less than a minute ago')]).toEqual([409, true]);
    await mail.sendDue(brand.brandId);
    const tests = mail.receivedBy(email).filter((received) => received.subject?.startsWith('[Test] '));
    expect(tests).toHaveLength(1);
    expect(tests[0]!.text).toContain('Alex');
    expect(await t.db('audit_log').where({ brand_id: brand.brandId, action: 'email_template.test' })).toHaveLength(1);
  });

  it('shows what was sent in words, sends a failed one again (audited), and takes an address off the suppression list only once confirmed', async () => {
    const { brand, agent, csrf } = await adminOf();
    const advocate = { email: `ann-${Date.now()}@example.com` };
    expect((await t.http.post('/api/v1/advocates').set(brand.headers).send({ email: advocate.email, first_name: 'Ann' })).status).toBe(201);
    const [message] = await t.db('mail_messages').where({ brand_id: brand.brandId, template: 'advocate_welcome' });
    await t.db('mail_messages').where({ message_id: message.message_id }).update({ status: 'failed', last_error: '550 mailbox unavailable' });
    const page = await agent.get('/dashboard/emails?status=failed');
    expect(page.text).toContain(advocate.email);
    expect(page.text).toContain('550 mailbox unavailable');
    const retried = await agent.post(`/dashboard/emails/log/${message.message_id}/retry`).type('form').send({ csrf_token: csrf });
    expect(retried.status).toBe(303);
    expect(await t.db('mail_messages').where({ message_id: message.message_id }).first()).toMatchObject({ status: 'queued' });
    expect(await t.db('audit_log').where({ brand_id: brand.brandId, action: 'mail.retry' })).toHaveLength(1);

    await suppressAddress(t.db, brand.brandId, 'gone@example.com', 'unsubscribed');
    expect((await agent.get('/dashboard/emails')).text).toContain('gone@example.com');
    expect((await agent.post('/dashboard/emails/suppressions/remove').type('form').send({ csrf_token: csrf, email: 'gone@example.com' })).status).toBe(400);
    const lifted = await agent.post('/dashboard/emails/suppressions/remove').type('form').send({ csrf_token: csrf, email: 'gone@example.com', confirm: 'yes' });
    expect(lifted.status).toBe(303);
    expect(await t.db('mail_suppressions').where({ brand_id: brand.brandId })).toEqual([]);
    expect(await t.db('audit_log').where({ brand_id: brand.brandId, action: 'mail.suppression_remove' })).toHaveLength(1);
  });
});

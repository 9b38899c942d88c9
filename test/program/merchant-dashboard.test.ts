import type { Knex } from 'knex';
import supertest from 'supertest';
import { processImportChunk } from '../../core/advocates/advocate-imports';
import { decryptSecret } from '../../core/brands/key-encryption';
import { getBrand } from '../../core/brands/brand';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { TEST_SECRET, type TestApp, startTestApp } from '../helpers/test-app';
import { lockKey } from '../../core/db/advisory-lock';
import { afterAnswerSettled } from '../../server/after-answer';
import { csrfTokenOf, settingsFormOf, signedInAgent } from '../dashboard/dashboard-helpers';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ publicUrl: 'http://127.0.0.1' });
});

let counter = 0;
const uniqueEmail = (who: string) => `${who}-${Date.now()}-${(counter += 1)}@example.com`;

/** The newest account email (sign-in link or invitation) queued to `email`, with its link unsealed. */
async function outboxLink(db: Knex, email: string, template = 'merchant_invitation'): Promise<URL> {
  await afterAnswerSettled(t.app); // a sign-in link is made once its answer is sent
  const row = await db('mail_messages').where({ recipient_normalized: email.toLowerCase(), template }).orderBy('message_id', 'desc').first();
  expect(row).toBeDefined();
  const data = typeof row.data === 'string' ? JSON.parse(row.data) : row.data;
  return new URL(decryptSecret(data.link_sealed, TEST_SECRET));
}

/** A browser-like client signed in through an emailed link. */
async function signInByLink(link: URL) {
  const agent = supertest.agent(t.app.callback());
  const confirm = await agent.get(`${link.pathname}${link.search}`);
  expect(confirm.status).toBe(200);
  const posted = await agent.post('/dashboard/login').type('form').send({ brand: link.searchParams.get('brand'), token: link.searchParams.get('token') });
  expect(posted.status).toBe(303);
  return agent;
}

/** A brand whose operator (CLI link) invited an owner, who signed in by the emailed link. */
async function brandWithUser(role: 'owner' | 'admin' | 'viewer' = 'owner', settings: object = {}) {
  const brand = await givenBrand(t.db, settings);
  const operator = await signedInAgent(t.app, t.db, brand.brandId);
  const team = await operator.get('/dashboard/team');
  const email = uniqueEmail(role);
  const invited = await operator.post('/dashboard/team/invite').type('form').send({ csrf_token: csrfTokenOf(team.text), email, role });
  expect(invited.status).toBe(303);
  const agent = await signInByLink(await outboxLink(t.db, email));
  const page = await agent.get('/dashboard/settings');
  return { brand, email, agent, operator, csrf: csrfTokenOf(page.text) };
}

describe('sign-in by emailed one-time link', () => {
  it('mails a link to a user of the brand, answers an unknown address alike, and the link signs them in as themselves', async () => {
    const { brand, email } = await brandWithUser('admin');
    const stranger = uniqueEmail('stranger');
    const known = await supertest(t.app.callback()).post('/dashboard/sign-in').type('form').send({ email });
    const unknown = await supertest(t.app.callback()).post('/dashboard/sign-in').type('form').send({ email: stranger });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(known.text.replace(email, 'X')).toBe(unknown.text.replace(stranger, 'X'));
    expect(await t.db('mail_messages').where({ recipient_normalized: stranger })).toHaveLength(0);
    const agent = await signInByLink(await outboxLink(t.db, email, 'merchant_sign_in'));
    const account = await agent.get('/dashboard/account');
    expect(account.text).toContain(email);
    expect(account.text).toContain('(this browser)');
    expect(await t.db('merchant_users').where({ brand_id: brand.brandId, email_normalized: email }).first()).toMatchObject({ role: 'admin' });
  });

  // A member's answer took 10.6 ms and a stranger's 4.8 ms: the link was made before answering.
  it('answers before the link is made, so the timing cannot tell a member from a stranger', async () => {
    const { brand, email } = await brandWithUser('admin');
    await afterAnswerSettled(t.app);
    const linksBefore = await t.db('dashboard_login_links').where({ brand_id: brand.brandId });
    let answered = false;
    // Another transaction holds the address's lock: making the link waits for it, the answer must not.
    await t.db.transaction(async (trx) => {
      await lockKey(trx, `sign-in:${email}`);
      const asking = supertest(t.app.callback()).post('/dashboard/sign-in').type('form').send({ email });
      const asked = await Promise.race([asking, new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000))]);
      answered = asked !== null && asked.status === 200 && asked.text.includes('Check your email');
    });
    expect(answered).toBe(true);
    await afterAnswerSettled(t.app);
    expect(await t.db('dashboard_login_links').where({ brand_id: brand.brandId })).toHaveLength(linksBefore.length + 1);
  });

  it('sends at most five links an hour to one address, still answering the same', async () => {
    const { email } = await brandWithUser('viewer');
    for (let i = 0; i < 7; i += 1) {
      const asked = await supertest(t.app.callback()).post('/dashboard/sign-in').type('form').send({ email });
      expect(asked.status).toBe(200);
    }
    await afterAnswerSettled(t.app);
    expect(await t.db('mail_messages').where({ recipient_normalized: email, template: 'merchant_sign_in' })).toHaveLength(4); // the invitation was the first link
  });

  it('refuses an address that is not one with a 400 naming email, and a cross-site post with a 403', async () => {
    const bad = await supertest(t.app.callback()).post('/dashboard/sign-in').type('form').send({ email: 'not-an-address' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('email must be an email address');
    const forged = await supertest(t.app.callback()).post('/dashboard/sign-in').set('Sec-Fetch-Site', 'cross-site').type('form').send({ email: 'a@example.com' });
    expect(forged.status).toBe(403);
  });

  it('"sign out everywhere" ends every session of that user', async () => {
    const { email, agent, csrf } = await brandWithUser('owner');
    const second = await signInByLink(await (async () => {
      await supertest(t.app.callback()).post('/dashboard/sign-in').type('form').send({ email });
      return outboxLink(t.db, email, 'merchant_sign_in');
    })());
    expect((await second.get('/dashboard')).status).toBe(200);
    const ended = await agent.post('/dashboard/account/sessions/end-all').type('form').send({ csrf_token: csrf });
    expect(ended.status).toBe(303);
    expect((await second.get('/dashboard')).status).toBe(401);
    expect((await agent.get('/dashboard')).status).toBe(401);
  });
});

describe('roles, enforced on every form', () => {
  it('lets a viewer see every page and change nothing: 403 on each form, also posted by hand with a valid CSRF token', async () => {
    const { brand, agent, csrf } = await brandWithUser('viewer');
    for (const page of ['/dashboard/settings', '/dashboard/keys', '/dashboard/payouts', '/dashboard/team', '/dashboard/audit', '/dashboard/advocates', '/dashboard/rewards', '/dashboard/rewards/bulk?action=void']) {
      expect((await agent.get(page)).status).toBe(200);
    }
    const settings = await agent.get('/dashboard/settings');
    expect(settings.text).not.toContain('Save settings');
    const before = await getBrand(t.db, brand.brandId);
    const posts: Array<[string, Record<string, string>]> = [
      ['/dashboard/settings', { referee_discount_value: '15' }],
      ['/dashboard/keys', { label: 'x' }],
      ['/dashboard/team/invite', { email: uniqueEmail('x'), role: 'owner' }],
      ['/dashboard/advocates', { email: uniqueEmail('adv'), first_name: 'Ann' }],
      ['/dashboard/reward-codes/retry', { back: 'payouts' }],
      ['/dashboard/emails/reward_approved', { subject: 'x', body: 'y', action: 'save' }],
      ['/dashboard/emails/reward_approved/test', {}],
      ['/dashboard/emails/suppressions/remove', { email: 'a@example.com', confirm: 'yes' }],
      ['/dashboard/rewards/1/approve', { note: 'x' }],
      ['/dashboard/rewards/1/void', { reason: 'x' }],
      ['/dashboard/rewards/bulk/approve', { upto: '1', asof: new Date().toISOString() }],
      ['/dashboard/rewards/bulk/void', { reason: 'x', upto: '1', asof: new Date().toISOString() }],
    ];
    for (const [path, fields] of posts) {
      const posted = await agent.post(path).type('form').send({ csrf_token: csrf, ...fields });
      expect({ path, status: posted.status }).toEqual({ path, status: 403 });
      expect(posted.text).toContain('Your role (viewer) cannot do this');
    }
    const upload = await agent.post('/dashboard/payouts/paid').field('csrf_token', csrf).attach('file', Buffer.from('payout_id,advocate_id,amount\nP-1-1,1,5.00\n'), 'paid.csv');
    expect(upload.status).toBe(403);
    expect(await getBrand(t.db, brand.brandId)).toEqual(before);
    expect(await t.db('api_keys').where({ brand_id: brand.brandId })).toHaveLength(1);
  });

  it('removes a user only once the confirmation box is ticked', async () => {
    const { brand, operator } = await brandWithUser('viewer');
    const team = await operator.get('/dashboard/team');
    const user = await t.db('merchant_users').where({ brand_id: brand.brandId }).first();
    const unconfirmed = await operator.post(`/dashboard/team/${user.user_id}/remove`).type('form').send({ csrf_token: csrfTokenOf(team.text) });
    expect(unconfirmed.status).toBe(400);
    expect(await t.db('merchant_users').where({ brand_id: brand.brandId, user_id: user.user_id }).first()).toBeDefined();
    const removed = await operator.post(`/dashboard/team/${user.user_id}/remove`).type('form').send({ csrf_token: csrfTokenOf(team.text), confirm: 'yes' });
    expect(removed.status).toBe(303);
    expect(await t.db('merchant_users').where({ brand_id: brand.brandId, user_id: user.user_id }).first()).toBeUndefined();
  });

  it('lets an admin invite admins and viewers but not owners, and keeps the last owner', async () => {
    const { brand, agent, csrf, operator } = await brandWithUser('admin');
    const owner = await agent.post('/dashboard/team/invite').type('form').send({ csrf_token: csrf, email: uniqueEmail('o'), role: 'owner' });
    expect(owner.status).toBe(403);
    const viewer = await agent.post('/dashboard/team/invite').type('form').send({ csrf_token: csrf, email: uniqueEmail('v'), role: 'viewer' });
    expect(viewer.status).toBe(303);
    const ownerEmail = uniqueEmail('owner');
    const team = await operator.get('/dashboard/team');
    await operator.post('/dashboard/team/invite').type('form').send({ csrf_token: csrfTokenOf(team.text), email: ownerEmail, role: 'owner' });
    const ownerRow = await t.db('merchant_users').where({ brand_id: brand.brandId, email_normalized: ownerEmail }).first();
    const demote = await operator.post(`/dashboard/team/${ownerRow.user_id}/role`).type('form').send({ csrf_token: csrfTokenOf(team.text), role: 'viewer' });
    expect(demote.status).toBe(409);
    expect(demote.text).toContain("only owner");
  });
});

describe('program settings in the dashboard', () => {
  it('shows an invalid value next to its field and saves nothing; a valid one is saved and audited before → after', async () => {
    const { brand, agent, csrf, email } = await brandWithUser('admin', { referee_discount_type: 'fixed', referee_discount_value: 5 });
    const page = await agent.get('/dashboard/settings');
    const form = settingsFormOf(page.text);
    const bad = await agent.post('/dashboard/settings').type('form').send({ ...form, csrf_token: csrf, referee_discount_value: 'lots' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('id="setting-referee_discount_value-error">Offer value must be a number, like 15 or 12.50<');
    expect(bad.text).toContain('value="lots"');
    const over = await agent.post('/dashboard/settings').type('form').send({ ...form, csrf_token: csrf, referee_discount_type: 'percentage', referee_discount_value: '150' });
    expect(over.status).toBe(400);
    expect(over.text).toContain('id="setting-referee_discount_value-error">A percentage off can be at most 100 %.<');
    expect((await getBrand(t.db, brand.brandId)).referee_discount_value).toBe(5);
    const saved = await agent.post('/dashboard/settings').type('form').send({ ...form, csrf_token: csrf, referee_discount_type: 'percentage', referee_discount_value: '15', referee_min_purchase: '50.00' });
    expect(saved.status).toBe(303);
    expect(await getBrand(t.db, brand.brandId)).toMatchObject({ referee_discount_type: 'percentage', referee_discount_value: 15, referee_min_purchase: 50 });
    const audit = await agent.get('/dashboard/audit?format=csv');
    expect(audit.text).toContain(`${email},brand.settings,brand`);
    expect(audit.text).toContain('referee_discount_value: 5');
    expect(audit.text).toContain('referee_discount_value: 15');
    const unforged = await agent.post('/dashboard/settings').type('form').send({ ...form, referee_discount_value: '1' });
    expect(unforged.status).toBe(403);
  });

  it('shows every refused value at once, each beside its field — the schema\'s and the checks after it alike — and saves none', async () => {
    // Issue 41: four bad values showed three errors; the fourth (a percentage over 100, checked after the schema) appeared only once the rest were fixed.
    const { brand, agent, csrf } = await brandWithUser('admin', { referee_discount_type: 'fixed', referee_discount_value: 5 });
    const form = settingsFormOf((await agent.get('/dashboard/settings')).text);
    const before = await getBrand(t.db, brand.brandId);
    const bad = await agent.post('/dashboard/settings').type('form').send({
      ...form,
      csrf_token: csrf,
      referee_discount_type: 'percentage',
      referee_discount_value: '150',
      reward_hold_days: '-1',
      attribution_window_days: 'soon',
      referee_min_purchase: '10.001',
    });
    expect(bad.status).toBe(400);
    const errors = [...bad.text.matchAll(/id="setting-([a-z_]+)-error">([^<]*)</g)].map((match) => [match[1], match[2]]);
    expect(Object.fromEntries(errors)).toEqual({
      referee_discount_value: 'A percentage off can be at most 100 %.',
      reward_hold_days: expect.stringMatching(/must not be negative/),
      attribution_window_days: expect.stringMatching(/must be a number/),
      referee_min_purchase: expect.stringMatching(/whole number of cents/),
    });
    expect(await getBrand(t.db, brand.brandId)).toEqual(before);
  });
});

describe('API keys in the dashboard', () => {
  it('shows a publishable key in full at any time, with the tag to paste into the store\'s pages; a secret key never again', async () => {
    // Issue 41: a publishable key (public by design) was shown once like a secret, with no snippet.
    const { brand, agent, csrf } = await brandWithUser('admin');
    expect((await agent.get('/dashboard/keys')).text).toContain('create a <em>publishable</em> key below');
    const created = await agent.post('/dashboard/keys').type('form').send({ csrf_token: csrf, label: 'storefront', kind: 'publishable' });
    expect(created.status).toBe(303);
    const stored = await t.db('api_keys').where({ brand_id: brand.brandId }).where('key_prefix', 'like', 'pk\\_%').first();
    for (const visit of [created.headers.location!, '/dashboard/keys', '/dashboard/keys']) {
      const page = await agent.get(visit);
      const key = /data-key=&#34;(pk_[A-Za-z0-9_-]+)&#34;/.exec(page.text)?.[1] ?? /data-key=&quot;(pk_[A-Za-z0-9_-]+)&quot;/.exec(page.text)?.[1];
      expect(key?.slice(0, 10)).toBe(stored.key_prefix);
      expect(page.text).toContain(`/referrals.js&quot; data-brand=&quot;${brand.brandId}&quot; data-key=&quot;${key}&quot; async&gt;&lt;/script&gt;`);
    }
    const secret = await agent.post('/dashboard/keys').type('form').send({ csrf_token: csrf, label: 'backend', kind: 'secret' });
    const shownOnce = /id="new-key" class="secret-value" value="([^"]+)"/.exec((await agent.get(secret.headers.location!)).text)![1]!;
    expect((await agent.get('/dashboard/keys')).text).not.toContain(shownOnce);
  });

  it('shows a new key once; it works at once, and a revoked one is refused at once', async () => {
    const { brand, agent, csrf } = await brandWithUser('admin');
    const created = await agent.post('/dashboard/keys').type('form').send({ csrf_token: csrf, label: 'checkout backend' });
    expect(created.status).toBe(303);
    const shown = await agent.get(created.headers.location!);
    const key = /id="new-key" class="secret-value" value="([^"]+)"/.exec(shown.text)![1]!;
    expect((await agent.get(created.headers.location!)).text).not.toContain(key);
    const headers = { 'X-API-Key': key, 'X-Brand-ID': brand.brandId };
    expect((await t.http.get('/api/v1/brand').set(headers)).status).toBe(200);
    const keyId = created.headers.location!.match(/created=([0-9a-f-]+)/)![1]!;
    // Issue 41: a click alone does not revoke; the confirmation box is required (by the browser, and here by the server).
    const unconfirmed = await agent.post(`/dashboard/keys/${keyId}/revoke`).type('form').send({ csrf_token: csrf });
    expect([unconfirmed.status, unconfirmed.text.includes('tick “Yes, revoke this key”')]).toEqual([400, true]);
    expect((await t.http.get('/api/v1/brand').set(headers)).status).toBe(200);
    expect((await agent.get('/dashboard/keys')).text).toMatch(/<input type="checkbox" name="confirm" value="yes" required> Yes, revoke /);
    expect((await agent.post(`/dashboard/keys/${keyId}/revoke`).type('form').send({ csrf_token: csrf, confirm: 'yes' })).status).toBe(303);
    expect((await t.http.get('/api/v1/brand').set(headers)).status).toBe(401);
  });
});

describe('advocates in the dashboard', () => {
  it('imports a CSV: checked lines created in chunks, refused lines reported with line, field and reason', async () => {
    const { brand, agent, csrf } = await brandWithUser('admin');
    const taken = await givenAdvocate(t.db, brand.brandId);
    const csv = [
      'Email,First name,Last name,Code',
      `${uniqueEmail('a')},Ann,Lee,`,
      `${uniqueEmail('b')},Bob,,BOBIMPORT${counter}`,
      'not-an-address,Cy,,',
      `${taken.email},Dee,,`,
      `"${uniqueEmail('e')}","=HYPERLINK(""x"")",,`,
    ].join('\r\n');
    const uploaded = await agent.post('/dashboard/advocates/import').field('csrf_token', csrf).attach('file', Buffer.from(csv), 'advocates.csv');
    expect(uploaded.status).toBe(303);
    const page = uploaded.headers.location!;
    expect((await agent.get(page)).text).toContain('Importing: 0 of 4 rows');
    // A chunk whose transaction never commits (the process dies mid-chunk) leaves nothing behind: the next pass does it again, once.
    await t.db
      .transaction(async (outer) => {
        expect(await processImportChunk(outer as unknown as Knex, { chunkSize: 2, brandId: brand.brandId })).toBe(2);
        throw new Error('crash before commit');
      })
      .catch((error: Error) => expect(error.message).toBe('crash before commit'));
    expect((await agent.get(page)).text).toContain('Importing: 0 of 4 rows');
    while ((await processImportChunk(t.db, { chunkSize: 2, brandId: brand.brandId })) > 0);
    const done = await agent.get(page);
    expect(done.text).toContain('Done: 3 advocates created, 2 lines refused.');
    const refused = await agent.get(`${page}?format=csv`);
    expect(refused.text).toContain('4,not-an-address,email,not-an-address,"must be an address that can receive mail, like friend@example.com"');
    expect(refused.text).toContain(`5,${taken.email},email,${taken.email},already an advocate (advocate ${taken.advocateId})`);
    expect(await t.db('advocates').where({ brand_id: brand.brandId })).toHaveLength(4);
  });

  it('refuses only the line it cannot read (a quote inside an unquoted value, a quote never closed) and imports the rest, listing refused lines in file order with the email and value', async () => {
    // Issue 41: one malformed line refused the whole file.
    const { brand, agent, csrf } = await brandWithUser('admin');
    const [ann, bo, cy, di, ed] = ['ann', 'bo', 'cy', 'di', 'ed'].map(uniqueEmail);
    const csv = ['email,first_name,last_name', `${ann},Ann,Lee`, `${bo},Bo "the" Bear,X`, `${cy},Cy,Z`, 'nope,Zed,', `${di},"Di,Q`, `${ed},Ed,F`].join('\n');
    const uploaded = await agent.post('/dashboard/advocates/import').field('csrf_token', csrf).attach('file', Buffer.from(csv), 'quotes.csv');
    expect(uploaded.status).toBe(303);
    while ((await processImportChunk(t.db, { chunkSize: 10, brandId: brand.brandId })) > 0);
    const page = await agent.get(uploaded.headers.location!);
    expect(page.text).toContain('Done: 2 advocates created, 4 lines refused.');
    const refused = (await agent.get(`${uploaded.headers.location!}?format=csv`)).text.split('\r\n').slice(1, -1);
    expect(refused.map((line) => line.split(',').slice(0, 2).join(','))).toEqual([`3,${bo}`, '5,nope', `6,${di}`, `7,${ed}`]);
    expect(refused[0]).toContain('a quote ("") inside a value');
    expect(refused[2]).toContain('is never closed');
    expect(page.text).toContain(`<td>${bo}</td><td>the whole line</td><td class="wrap">${bo},Bo &quot;the&quot;</td>`);
    expect((await t.db('advocates').where({ brand_id: brand.brandId }).pluck('email')).sort()).toEqual([ann, cy].sort());
  });

  it('adds, edits and deactivates an advocate, each in the audit log', async () => {
    const { brand, agent, csrf, email: actor } = await brandWithUser('admin', { store_url: 'https://shop.example.com' });
    const email = uniqueEmail('adv');
    const added = await agent.post('/dashboard/advocates').type('form').send({ csrf_token: csrf, email, first_name: 'Zoe', code: `ZOE${counter}` });
    expect(added.status).toBe(303);
    const page = await agent.get(added.headers.location!);
    expect(page.text).toContain(`https://shop.example.com/?ref=ZOE${counter}`);
    const id = added.headers.location!.match(/advocates\/(\d+)/)![1];
    expect((await agent.post(`/dashboard/advocates/${id}/deactivate`).type('form').send({ csrf_token: csrf })).status).toBe(400);
    expect((await agent.post(`/dashboard/advocates/${id}/deactivate`).type('form').send({ csrf_token: csrf, confirm: 'yes' })).status).toBe(303);
    const order = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: uniqueEmail('f'), order_id: uniqueOrderId(), order_value: 50, referral_code: `ZOE${counter}` });
    expect(order.status).toBe(404);
    const taken = await agent.post('/dashboard/advocates').type('form').send({ csrf_token: csrf, email, first_name: 'Zoe' });
    expect(taken.status).toBe(409);
    expect(taken.text).toContain(`<p class="error field-error" id="add-email-error">An advocate with email ${email} already exists</p>`);

    // Issue 41: errors were one banner with the raw field key; now each is beside its field, all at once.
    const bad = await agent.post('/dashboard/advocates').type('form').send({ csrf_token: csrf, email: 'not-an-address', first_name: 'A'.repeat(101), code: 'no spaces allowed!' });
    expect(bad.status).toBe(400);
    const errors = Object.fromEntries([...bad.text.matchAll(/id="add-([a-z]+)-error">([^<]*)</g)].map((match) => [match[1], match[2]]));
    expect(Object.keys(errors).sort()).toEqual(['code', 'email', 'first']);
    expect(errors.email).toMatch(/^Email: /);
    expect(bad.text).toContain('Nothing was added: fix what is marked below.');
    expect(bad.text).not.toMatch(/role="alert">[^<]*first_name/);
    const actions = await t.db('audit_log').where({ brand_id: brand.brandId, actor }).orderBy('entry_id').pluck('action');
    expect(actions).toEqual(['advocate.create', 'advocate.deactivate']);
  });
});

describe('payouts in the dashboard', () => {
  it('downloads the payable file and records the uploaded paid file once', async () => {
    const { brand, agent, csrf } = await brandWithUser('admin', { reward_type: 'fixed', reward_value: 7, reward_hold_days: 0 });
    const advocate = await givenAdvocate(t.db, brand.brandId, { first_name: '=cmd' });
    const sale = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: uniqueEmail('buyer'), order_id: uniqueOrderId(), order_value: 70, referral_code: advocate.code });
    expect(sale.status).toBe(201);
    const file = await agent.get('/dashboard/payouts?format=csv');
    expect(file.headers['content-type']).toContain('text/csv');
    expect(file.text).toContain(`,${advocate.advocateId},${advocate.email},`);
    expect(file.text).toContain(',7.00');
    for (const expected of ['Recorded 1 payout (7.00 USD).', 'Nothing changed: 1 payout was already recorded.']) {
      const upload = await agent.post('/dashboard/payouts/paid').field('csrf_token', csrf).attach('file', Buffer.from(file.text), 'paid.csv');
      expect(upload.status).toBe(303);
      expect((await agent.get(upload.headers.location!)).text).toContain(expected);
    }
    const page = await agent.get('/dashboard/payouts');
    expect(page.text).toContain('Nothing to pay');
    expect(page.text).toMatch(/P-\d+-\d+/);
  });
});

describe('status notices after a form', () => {
  // ?done=<any text> on five pages showed the link's text as the trusted status line ("Your account is suspended: call …").
  it('shows only the page\'s own messages: a link\'s ?done= text (or a key prefix, code or user of its choosing) is never shown', async () => {
    const { brand, agent, csrf } = await brandWithUser('admin');
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const bait = 'Your payouts are frozen: call +1 555 0100';
    const attempts = [
      '/dashboard/advocates',
      `/dashboard/advocates/${advocate.advocateId}`,
      `/dashboard/advocates/${advocate.advocateId}?done=code_added&code=${encodeURIComponent(bait)}`,
      '/dashboard/payouts',
      '/dashboard/team',
      '/dashboard/team?done=invited&user=999999',
      '/dashboard/account',
      `/dashboard/keys?revoked=${encodeURIComponent(bait)}`,
    ];
    for (const path of attempts) {
      const withBait = path.includes('?') ? path : `${path}?done=${encodeURIComponent(bait)}`;
      const page = await agent.get(withBait);
      expect([withBait, page.status]).toEqual([withBait, 200]);
      expect([withBait, page.text.includes('555 0100')]).toEqual([withBait, false]);
    }
    // The forms' own notices still show, described from what is stored.
    const added = await agent.post('/dashboard/advocates').type('form').send({ csrf_token: csrf, email: uniqueEmail('n'), first_name: 'Nia', code: `NIA${counter}` });
    expect(added.headers.location).toMatch(/\?done=added$/);
    expect((await agent.get(added.headers.location!)).text).toContain(`joined with code NIA${counter}.`);
    const code = await agent.post(`${added.headers.location!.split('?')[0]}/codes`).type('form').send({ csrf_token: csrf, code: `NIB${counter}` });
    expect((await agent.get(code.headers.location!)).text).toContain(`Code NIB${counter} added.`);
    const invited = await agent.post('/dashboard/team/invite').type('form').send({ csrf_token: csrf, email: 'nia-viewer@example.com', role: 'viewer' });
    expect(invited.headers.location).toMatch(/\?done=invited&user=\d+$/);
    expect((await agent.get(invited.headers.location!)).text).toContain('Invited nia-viewer@example.com as viewer');
  });
});

import supertest from 'supertest';
import { configureConnectors } from '../../server/connectors';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { shopifySessionToken } from '../helpers/shopify-session-token';
import { type TestApp, startTestApp } from '../helpers/test-app';
import { csrfTokenOf, expectMetrics, metric, signInLink, signedInAgent } from './dashboard-helpers';

const SHOPIFY = { SHOPIFY_API_KEY: 'dashboard-test-key', SHOPIFY_API_SECRET: 'dashboard-test-secret', SHOPIFY_APP_URL: 'https://referrals.example.com' };

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({}, undefined, configureConnectors({ ...SHOPIFY }));
});

describe('signing in to the dashboard', () => {
  it('sends / to the sign-in help when nobody is signed in, and answers the dashboard 401 with how to sign in', async () => {
    const root = await t.http.get('/');
    expect(root.status).toBe(302);
    expect(root.headers.location).toBe('/dashboard/sign-in');
    const help = await t.http.get('/dashboard/sign-in');
    expect(help.status).toBe(200);
    expect(help.text).toContain('Email me a sign-in link');
    // Issue 41: a merchant's page names no CLI command.
    expect(help.text).not.toMatch(/referrals (dashboard|brand|key|shopify)/);
    const overview = await t.http.get('/dashboard');
    expect(overview.status).toBe(401);
    expect(overview.headers['content-type']).toMatch(/text\/html/);
    expect(overview.text).toContain('You are not signed in');
    expect(overview.text).not.toMatch(/referrals (dashboard|brand|key|shopify)/);
  });

  it('opens a session from the CLI link: HttpOnly SameSite=Lax cookie (not Secure on a loopback HTTP request), only hashes stored', async () => {
    const brand = await givenBrand(t.db, { name: 'Acme Outdoor' });
    const { url, expires_at } = await signInLink(t.db, brand.brandId, 'https://dash.example.com');
    expect(url.origin + url.pathname).toBe('https://dash.example.com/dashboard/login');
    expect(new Date(expires_at).getTime() - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(new Date(expires_at).getTime() - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    const token = url.searchParams.get('token')!;
    const stored = await t.db('dashboard_login_links').where({ brand_id: brand.brandId });
    expect(stored).toHaveLength(1);
    expect(stored[0].token_hash).not.toContain(token);

    const confirm = await t.http.get(`/dashboard/login?${url.searchParams}`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Sign in to Acme Outdoor');
    // Opening the link spends nothing: only the button's POST does.
    expect((await t.db('dashboard_login_links').where({ brand_id: brand.brandId }).first()).used_at).toBeNull();

    const agent = supertest.agent(t.app.callback());
    const posted = await agent.post('/dashboard/login').type('form').send({ brand: brand.brandId, token });
    expect(posted.status).toBe(303);
    expect(posted.headers.location).toBe('/dashboard');
    const cookie = posted.headers['set-cookie']![0]!;
    expect(cookie).toMatch(/^referrals_dashboard=/);
    expect(cookie).toMatch(/httponly/i);
    expect(cookie).toMatch(/samesite=lax/i);
    expect(cookie).not.toMatch(/secure/i);
    const sessionSecret = /referrals_dashboard=[^.]+\.([^;]+)/.exec(cookie)![1]!;
    const session = await t.db('dashboard_sessions').where({ brand_id: brand.brandId }).first();
    expect(session.session_hash).not.toContain(sessionSecret);

    const overview = await agent.get('/dashboard');
    expect(overview.status).toBe(200);
    expect(overview.text).toContain('Acme Outdoor');
    expect((await agent.get('/')).headers.location).toBe('/dashboard');
  });

  it('marks the cookie Secure when the request came over HTTPS through a trusted proxy', async () => {
    const proxied = await startTestApp({ trustProxy: true }, t.db);
    const brand = await givenBrand(t.db);
    const { url } = await signInLink(t.db, brand.brandId);
    const posted = await supertest(proxied.app.callback())
      .post('/dashboard/login')
      .set('X-Forwarded-Proto', 'https')
      .type('form')
      .send({ brand: brand.brandId, token: url.searchParams.get('token') });
    expect(posted.status).toBe(303);
    expect(posted.headers['set-cookie']![0]).toMatch(/; secure/i);
  });

  it('refuses a sign-in posted from another site (login CSRF): the link stays unspent and no session opens', async () => {
    const brand = await givenBrand(t.db);
    const { url } = await signInLink(t.db, brand.brandId);
    const form = { brand: brand.brandId, token: url.searchParams.get('token') };
    for (const headers of [{ 'Sec-Fetch-Site': 'cross-site' }, { 'Sec-Fetch-Site': 'same-site' }, { Origin: 'https://attacker.example' }]) {
      const refused = await t.http.post('/dashboard/login').set(headers).type('form').send(form);
      expect([headers, refused.status, refused.text.includes('csrf_rejected')]).toEqual([headers, 403, true]);
    }
    expect(await t.db('dashboard_sessions').where({ brand_id: brand.brandId })).toHaveLength(0);
    // The confirm page's own button: same origin.
    const origin = `http://127.0.0.1`;
    const signedIn = await t.http.post('/dashboard/login').set({ 'Sec-Fetch-Site': 'same-origin', Origin: origin, Host: '127.0.0.1' }).type('form').send(form);
    expect(signedIn.status).toBe(303);
  });

  it('refuses a used link with 403 and a page saying so; the second POST opens no second session', async () => {
    const brand = await givenBrand(t.db);
    const { url } = await signInLink(t.db, brand.brandId);
    const form = { brand: brand.brandId, token: url.searchParams.get('token') };
    expect((await t.http.post('/dashboard/login').type('form').send(form)).status).toBe(303);
    const again = await t.http.post('/dashboard/login').type('form').send(form);
    expect(again.status).toBe(403);
    expect(again.headers['content-type']).toMatch(/text\/html/);
    expect(again.text).toContain('This sign-in link was already used');
    expect(again.text).toContain('login_link_refused');
    const reopened = await t.http.get(`/dashboard/login?${url.searchParams}`);
    expect(reopened.status).toBe(403);
    expect(reopened.text).toContain('already used');
    expect(await t.db('dashboard_sessions').where({ brand_id: brand.brandId })).toHaveLength(1);
  });

  it('refuses an expired link with 403 and a page saying it expired', async () => {
    const brand = await givenBrand(t.db);
    const { url } = await signInLink(t.db, brand.brandId);
    await t.db('dashboard_login_links').where({ brand_id: brand.brandId }).update({ expires_at: new Date(Date.now() - 1000) });
    const opened = await t.http.get(`/dashboard/login?${url.searchParams}`);
    expect(opened.status).toBe(403);
    expect(opened.text).toContain('This sign-in link expired (links last 10 minutes)');
    const posted = await t.http.post('/dashboard/login').type('form').send({ brand: brand.brandId, token: url.searchParams.get('token') });
    expect(posted.status).toBe(403);
    expect(await t.db('dashboard_sessions').where({ brand_id: brand.brandId })).toHaveLength(0);
  });

  it('answers a malformed link with 400 naming the field', async () => {
    const noBrand = await t.http.get('/dashboard/login?brand=nope&token=abc');
    expect(noBrand.status).toBe(400);
    expect(noBrand.text).toContain('brand must be a brand ID');
    const brand = await givenBrand(t.db);
    const noToken = await t.http.get(`/dashboard/login?brand=${brand.brandId}`);
    expect(noToken.status).toBe(400);
    expect(noToken.text).toContain('token is missing or malformed');
    expect((await t.http.post('/dashboard/login').type('form').send({ brand: brand.brandId, token: 'x'.repeat(43) })).status).toBe(403);
  });

  it('refuses a logout posted without the session CSRF token (403, session still open), and ends the session with it', async () => {
    const brand = await givenBrand(t.db);
    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const page = await agent.get('/dashboard');
    const csrf = csrfTokenOf(page.text);

    const forged = await agent.post('/dashboard/logout').type('form').send({});
    expect(forged.status).toBe(403);
    expect(forged.text).toContain('CSRF token is missing or wrong');
    const wrong = await agent.post('/dashboard/logout').type('form').send({ csrf_token: `${csrf.slice(0, -2)}xx` });
    expect(wrong.status).toBe(403);
    expect((await agent.get('/dashboard')).status).toBe(200);

    const out = await agent.post('/dashboard/logout').type('form').send({ csrf_token: csrf });
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe('/dashboard/sign-in?signed_out=1');
    expect((await agent.get('/dashboard')).status).toBe(401);
    expect((await t.db('dashboard_sessions').where({ brand_id: brand.brandId }).first()).ended_at).not.toBeNull();
  });

  it('sends security headers: no framing, scripts only from this server, no referrer', async () => {
    const brand = await givenBrand(t.db);
    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const page = await agent.get('/dashboard');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['content-security-policy']).toContain("script-src 'self';");
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).not.toContain('cdn.shopify.com');
  });
});

describe('what the dashboard shows', () => {
  it('shows the totals the API recorded: conversions, revenue, refunds, refund rate and rewards', async () => {
    const brand = await givenBrand(t.db, { reward_type: 'fixed', reward_value: 10 });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const first = uniqueOrderId();
    for (const [orderId, value] of [[first, 120], [uniqueOrderId(), 80]] as const) {
      const sent = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'bob@example.com', order_id: orderId, order_value: value, referral_code: advocate.code });
      expect(sent.status).toBe(201);
    }
    const refund = await t.http.post('/api/v1/track/refund').set(brand.headers).send({ order_id: first, refund_amount: 40, is_full_refund: false, refund_id: 'r-dash-1' });
    expect(refund.status).toBe(200);
    expect(refund.body.data.reward_reversed).toBe(3.33);

    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const page = await agent.get('/dashboard?period=7');
    expect(page.status).toBe(200);
    expectMetrics(page.text, {
      conversions: '2',
      revenue: '200.00 USD',
      refunded: '40.00 USD',
      'refund-rate': '20.00 %',
      'rewards-earned': '20.00 USD',
      'rewards-reversed': '3.33 USD',
      'rewards-redeemed': '0.00 USD',
    });
    expect(page.text).toContain('10.00 USD per order');
  });

  it('stores the rest of the last year in the background after a sign-in, so a custom period of 200 days ago reads stored days', async () => {
    const brand = await givenBrand(t.db);
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const orderId = uniqueOrderId();
    expect((await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'y@example.com', order_id: orderId, order_value: 70, referral_code: advocate.code })).status).toBe(201);
    const longAgo = new Date(Date.now() - 200 * 86_400_000);
    await t.db('conversions').where({ brand_id: brand.brandId, order_id: orderId }).update({ created_at: longAgo });
    const day = longAgo.toISOString().slice(0, 10);
    const warming = await startTestApp({ warmReportsOnSignIn: true }, t.db); // DASHBOARD_WARM_REPORTS's default; off in the other tests
    await signedInAgent(warming.app, t.db, brand.brandId);
    const storedDay = () => t.db('report_days').where({ brand_id: brand.brandId }).whereRaw(`day = CAST(? AS date)`, [day]).first();
    for (let wait = 0; wait < 100 && !(await storedDay()); wait += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await storedDay()).toMatchObject({ conversions: 1, revenue: '70.00' });
  });

  it('stores nothing at sign-in with DASHBOARD_WARM_REPORTS=false: the overview stores the days it shows', async () => {
    const brand = await givenBrand(t.db);
    const advocate = await givenAdvocate(t.db, brand.brandId);
    expect((await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'z@example.com', order_id: uniqueOrderId(), order_value: 30, referral_code: advocate.code })).status).toBe(201);
    const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000);
    await t.db('conversions').where({ brand_id: brand.brandId }).update({ created_at: tenDaysAgo });
    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const storedDays = async () => Number((await t.db('report_days').where({ brand_id: brand.brandId }).count({ days: '*' }).first())!.days);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await storedDays()).toBe(0);
    expect(metric((await agent.get('/dashboard?period=30')).text, 'revenue')).toBe('30.00 USD');
    // 29 of the 30 days have ended; yesterday is stored only once it ended an hour ago (before 01:00 UTC it is read live).
    expect(await storedDays()).toBeGreaterThanOrEqual(28);
    const conversionDay = tenDaysAgo.toISOString().slice(0, 10);
    expect(await t.db('report_days').where({ brand_id: brand.brandId }).whereRaw('day = CAST(? AS date)', [conversionDay]).first()).toMatchObject({ conversions: 1, revenue: '30.00' });
  });

  it('stores a closed day\'s figures once, and shows a later refund of that day\'s order at once (the stored day is dropped)', async () => {
    const brand = await givenBrand(t.db, { reward_type: 'fixed', reward_value: 10 });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const orderId = uniqueOrderId();
    const sent = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({
      email: 'old@example.com', order_id: orderId, order_value: 100, referral_code: advocate.code,
      products: [{ title: 'Lamp', qty: 1, price: 100, sku: 'LAMP-1' }],
    });
    expect(sent.status).toBe(201);
    // The API stamps orders now; this one is moved three days back, as if it had come then.
    const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000);
    await t.db('conversions').where({ brand_id: brand.brandId, order_id: orderId }).update({ created_at: threeDaysAgo });
    await t.db('reward_ledger').where({ brand_id: brand.brandId }).update({ created_at: threeDaysAgo });
    const day = threeDaysAgo.toISOString().slice(0, 10);

    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const before = await agent.get('/dashboard?period=7');
    expectMetrics(before.text, { revenue: '100.00 USD', refunded: '0.00 USD' });
    // Signing in stores the last 90 days in the background; the page may have computed the day live meanwhile.
    const storedDay = () => t.db('report_days').where({ brand_id: brand.brandId }).whereRaw(`day = CAST(? AS date)`, [day]).first();
    for (let wait = 0; wait < 50 && !(await storedDay()); wait += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    const stored = await storedDay();
    expect(stored).toMatchObject({ conversions: 1, revenue: '100.00', refunded: '0.00', credits: '10.00' });
    const products = await agent.get('/dashboard/products?period=7');
    expect(products.text).toContain('<th scope="row">LAMP-1</th>');

    const refund = await t.http.post('/api/v1/track/refund').set(brand.headers).send({ order_id: orderId, refund_amount: 25, is_full_refund: false, refund_id: 'old-day-1' });
    expect(refund.status).toBe(200);
    expect(await t.db('report_days').where({ brand_id: brand.brandId }).whereRaw(`day = CAST(? AS date)`, [day])).toHaveLength(0);
    const after = await agent.get('/dashboard?period=7');
    expectMetrics(after.text, {
      revenue: '100.00 USD',
      refunded: '25.00 USD',
      'refund-rate': '25.00 %',
      'rewards-earned': '10.00 USD',
      'rewards-reversed': '2.50 USD',
    });
  });

  it('drops a stored day when its order is deleted (a customer\'s redaction, a brand\'s deletion), in one pass per statement', async () => {
    const brand = await givenBrand(t.db);
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const orderId = uniqueOrderId();
    await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'gone@example.com', order_id: orderId, order_value: 40, referral_code: advocate.code });
    const fourDaysAgo = new Date(Date.now() - 4 * 86_400_000);
    await t.db('conversions').where({ brand_id: brand.brandId, order_id: orderId }).update({ created_at: fourDaysAgo });
    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    expect(metric((await agent.get('/dashboard?period=7')).text, 'revenue')).toBe('40.00 USD');
    const storedDay = () => t.db('report_days').where({ brand_id: brand.brandId }).whereRaw('day = CAST(? AS date)', [fourDaysAgo.toISOString().slice(0, 10)]).first();
    for (let wait = 0; wait < 50 && !(await storedDay()); wait += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await storedDay()).toMatchObject({ conversions: 1, revenue: '40.00' });

    await t.db('reward_ledger').where({ brand_id: brand.brandId }).delete();
    await t.db('conversions').where({ brand_id: brand.brandId }).delete();
    expect(await storedDay()).toBeUndefined();
    expect(metric((await agent.get('/dashboard?period=7')).text, 'revenue')).toBe('0.00 USD');
  });

  it('shows an order of 90 minutes ago, whether its hour is stored or live, and its refund at once', async () => {
    const brand = await givenBrand(t.db, { reward_type: 'fixed', reward_value: 10 });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const orderId = uniqueOrderId();
    await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'hour@example.com', order_id: orderId, order_value: 60, referral_code: advocate.code });
    // 90 minutes back: a closed hour of today (stored), or of yesterday, or live just after midnight.
    const earlier = new Date(Date.now() - 90 * 60_000);
    await t.db('conversions').where({ brand_id: brand.brandId, order_id: orderId }).update({ created_at: earlier });
    await t.db('reward_ledger').where({ brand_id: brand.brandId }).update({ created_at: earlier });
    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const before = await agent.get('/dashboard?period=7');
    expect([metric(before.text, 'revenue'), metric(before.text, 'rewards-earned')]).toEqual(['60.00 USD', '10.00 USD']);
    const refund = await t.http.post('/api/v1/track/refund').set(brand.headers).send({ order_id: orderId, refund_amount: 15, is_full_refund: false, refund_id: 'hour-1' });
    expect(refund.status).toBe(200);
    const after = await agent.get('/dashboard?period=7');
    expect([metric(after.text, 'revenue'), metric(after.text, 'refunded'), metric(after.text, 'rewards-reversed')]).toEqual(['60.00 USD', '15.00 USD', '2.50 USD']);
  });

  it('escapes hostile strings: an advocate named <script> is shown as text, never run', async () => {
    const brand = await givenBrand(t.db, { name: 'Shop "<b>bold</b>"' });
    await givenAdvocate(t.db, brand.brandId, { first_name: '<script>alert(1)</script>', code: 'HOSTILE1' });
    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const page = await agent.get('/dashboard/advocates');
    expect(page.status).toBe(200);
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.text).not.toContain('<script>alert(1)');
    expect(page.text).toContain('Shop &quot;&lt;b&gt;bold&lt;/b&gt;&quot;');
    const search = await agent.get(`/dashboard/advocates?q=${encodeURIComponent('"><script>x()</script>')}`);
    expect(search.status).toBe(200);
    expect(search.text).not.toContain('<script>x()');
    expect(search.text).toContain('value="&quot;&gt;&lt;script&gt;x()&lt;/script&gt;"');
    // Error pages repeat what was asked for, escaped too (with `backticks` as the only markup).
    const missing = await agent.get(`/dashboard/advocates/${encodeURIComponent('<script>y()</script>`x`')}`);
    expect(missing.status).toBe(404);
    expect(missing.text).not.toContain('<script>y()');
    expect(missing.text).toContain('advocate &lt;script&gt;y()&lt;/script&gt;<code>x</code> not found');
  });

  it('exports the advocates table as CSV with proper quoting and spreadsheet formulas neutralised', async () => {
    const brand = await givenBrand(t.db, { reward_hold_days: 0 }); // the reward is spendable at once: balance 10
    const advocate = await givenAdvocate(t.db, brand.brandId, { first_name: 'Ann, "the" =1+1', email: 'ann-csv@example.com', code: 'ANNCSV' });
    await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'c@example.com', order_id: uniqueOrderId(), order_value: 50.5, referral_code: advocate.code });
    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const csv = await agent.get('/dashboard/advocates?format=csv');
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="advocates-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(csv.text).toBe(
      'advocate_id,first_name,last_name,email,codes,conversions,revenue,balance,pending,owed,currency\r\n' +
        `${advocate.advocateId},"Ann, ""the"" =1+1",,ann-csv@example.com,ANNCSV,1,50.50,10.00,0.00,0.00,USD\r\n`,
    );
    const formula = await givenAdvocate(t.db, brand.brandId, { first_name: '=HYPERLINK("http://evil")', email: 'f@example.com', code: 'FORMULA1' });
    const again = await agent.get('/dashboard/advocates?format=csv&q=formula1');
    expect(again.text).toBe(
      'advocate_id,first_name,last_name,email,codes,conversions,revenue,balance,pending,owed,currency\r\n' +
        `${formula.advocateId},"'=HYPERLINK(""http://evil"")",,f@example.com,FORMULA1,0,0.00,0.00,0.00,0.00,USD\r\n`,
    );
    // A bare line feed in a name stays inside its quoted cell: it never starts a row with `=2+3`.
    const broken = await givenAdvocate(t.db, brand.brandId, { first_name: 'Bob\n=2+3', email: 'lf@example.com', code: 'LINEFEED1' });
    const quoted = await agent.get('/dashboard/advocates?format=csv&q=linefeed1');
    expect(quoted.text).toBe(
      'advocate_id,first_name,last_name,email,codes,conversions,revenue,balance,pending,owed,currency\r\n' +
        `${broken.advocateId},"Bob\n=2+3",,lf@example.com,LINEFEED1,0,0.00,0.00,0.00,0.00,USD\r\n`,
    );
    // `x;=1+1` was written bare: a spreadsheet that splits on `;` (de/fr/es Excel) ran `=1+1`.
    const semicolon = await givenAdvocate(t.db, brand.brandId, { first_name: 'x;=1+1', email: 'sc@example.com', code: 'SEMICOLON1' });
    const split = await agent.get('/dashboard/advocates?format=csv&q=semicolon1');
    expect(split.text).toBe(
      'advocate_id,first_name,last_name,email,codes,conversions,revenue,balance,pending,owed,currency\r\n' +
        `${semicolon.advocateId},x;'=1+1,,sc@example.com,SEMICOLON1,0,0.00,0.00,0.00,0.00,USD\r\n`,
    );
  });

  it('answers bad query parameters with 400 naming the field, never 500', async () => {
    const brand = await givenBrand(t.db);
    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const cases: Array<[string, string]> = [
      ['/dashboard?period=custom&to=2026-01-31', 'from is required for a custom period'],
      ['/dashboard?period=custom&from=2026-01-31&to=2026-01-01', 'must not be before from'],
      ['/dashboard?period=custom&from=2024-01-01&to=2026-01-01', 'at most 366 days'],
      ['/dashboard?period=12', 'period must be 7, 30, 90 or custom'],
      ['/dashboard?period=custom&from=2026-02-31&to=2026-03-01', 'from is not a calendar date'],
      ['/dashboard?period=custom&from=2026-13-01&to=2026-12-31', 'from is not a calendar date'],
      ['/dashboard?period=custom&from=2026-01-01&to=2026-00-10', 'to is not a calendar date'],
      ['/dashboard/advocates?page=abc', 'page must be a number'],
      ['/dashboard/advocates?page=0', 'page must be at least 1'],
      ['/dashboard/activity?kind=bogus', 'kind must be one of visit, claim, conversion, refund'],
      ['/dashboard/products?format=xml', 'format must be html or csv'],
    ];
    for (const [path, message] of cases) {
      const answer = await agent.get(path);
      expect([path, answer.status]).toEqual([path, 400]);
      expect(answer.text).toContain(message);
    }
    expect((await agent.get('/dashboard/advocates/999999999')).status).toBe(404);
    expect((await agent.get('/dashboard/advocates/abc')).status).toBe(404);
  });

  it('shows only the signed-in brand: another brand\'s advocate is not found', async () => {
    const mine = await givenBrand(t.db);
    const theirs = await givenBrand(t.db);
    const other = await givenAdvocate(t.db, theirs.brandId, { first_name: 'Theirs' });
    const agent = await signedInAgent(t.app, t.db, mine.brandId);
    expect((await agent.get(`/dashboard/advocates/${other.advocateId}`)).status).toBe(404);
    expect((await agent.get('/dashboard/advocates')).text).not.toContain('Theirs');
  });

  it('shows on Connections a refused Shopify topic with what to do, the Medusa deliveries, and the outbound-webhooks section', async () => {
    const brand = await givenBrand(t.db);
    const shop = `conn-${brand.brandId.slice(0, 8)}.myshopify.com`;
    await t.db('shopify_shops').insert({ brand_id: brand.brandId, shop_domain: shop, app_kind: 'custom', status: 'installed' });
    await t.db('shopify_webhook_subscriptions').insert([
      { brand_id: brand.brandId, shop_domain: shop, topic: 'orders/paid', status: 'refused', uri: 'https://referrals.example.com/shopify/webhooks', error: 'This app is not approved to subscribe to webhook topics containing protected customer data.' },
      { brand_id: brand.brandId, shop_domain: shop, topic: 'app/uninstalled', status: 'subscribed', subscription_id: 'gid://shopify/WebhookSubscription/1', uri: 'https://referrals.example.com/shopify/webhooks' },
    ]);
    await t.db('medusa_deliveries').insert({ brand_id: brand.brandId, event_id: 'evt_dash_1', event_name: 'order.placed', order_id: 'order_01MEDUSA', outcome: { conversion_id: 7 } });
    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const page = await agent.get('/dashboard/connections');
    expect(page.status).toBe(200);
    expect(page.text).toContain(`${shop}: installed (custom app), 1 webhook topic(s) refused.`);
    expect(page.text).toContain('orders/paid: This app is not approved to subscribe to webhook topics containing protected customer data. → Request protected customer data access for the app');
    expect(page.text).toContain('<td>order_01MEDUSA</td><td>{&quot;conversion_id&quot;:7}</td><td>evt_dash_1</td>');
    expect(page.text).toContain('<h2 id="outbound-webhooks">Outbound webhooks</h2>');
  });

  it('serves its assets from this server with long cache headers', async () => {
    const brand = await givenBrand(t.db);
    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const page = await agent.get('/dashboard');
    const uplot = /src="(\/dashboard\/assets\/uplot\.js\?v=[0-9a-f]+)"/.exec(page.text)![1]!;
    const asset = await t.http.get(uplot);
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await t.http.get('/dashboard/assets/nope.js')).status).toBe(404);
  });

  it('answers an unknown dashboard address with a page (never JSON, never the address\'s text) and /favicon.ico with the icon every page links', async () => {
    // Issue 41: /dashboard/<unknown> and /favicon.ico answered the API's raw JSON.
    const brand = await givenBrand(t.db);
    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const unknown = await agent.get('/dashboard/%3Cb%3Eyou-were-hacked%3C%2Fb%3E/more');
    expect([unknown.status, unknown.type]).toEqual([404, 'text/html']);
    expect(unknown.text).toContain('There is no such page in the dashboard.');
    expect(unknown.text).not.toContain('hacked');
    expect((await t.http.get('/dashboard/nope')).type).toBe('text/html');
    const page = await agent.get('/dashboard');
    const icon = /<link rel="icon" href="(\/dashboard\/assets\/icon\.svg\?v=[0-9a-f]+)"/.exec(page.text)![1]!;
    expect((await t.http.get(icon)).headers['content-type']).toBe('image/svg+xml');
    const favicon = await t.http.get('/favicon.ico');
    expect([favicon.status, favicon.headers['content-type']]).toEqual([200, 'image/svg+xml']);
  });

  it('says where the brand\'s plan lacks a feature: a Growth brand records no link visits or claims, and its Overview, Activity and API keys pages say so; a Premier brand sees no such note', async () => {
    // Issue 41: a Growth brand's storefront silently recorded no landing.
    const growth = await givenBrand(t.db, { plan: 'growth' });
    const agent = await signedInAgent(t.app, t.db, growth.brandId);
    const activity = await agent.get('/dashboard/activity');
    expect(activity.text).toContain('data-plan-missing="visits">Your plan (growth) does not include link visits: who landed from a share link, and through which channel: that needs the Premier plan');
    expect(activity.text).toContain('data-plan-missing="claims"');
    expect((await agent.get('/dashboard/keys')).text).toContain('data-plan-missing="visits"');
    expect((await agent.get('/dashboard')).text).toMatch(/<dt>Plan<\/dt><dd>growth — not included: discount claims before checkout[^<]*\(Premier\); link visits/);
    const premier = await givenBrand(t.db, { plan: 'premier' });
    const premierAgent = await signedInAgent(t.app, t.db, premier.brandId);
    expect((await premierAgent.get('/dashboard/activity')).text).not.toContain('data-plan-missing');
    expect((await premierAgent.get('/dashboard')).text).toContain('<dt>Plan</dt><dd>premier — every feature included</dd>');
  });

  it('invites a new user as a viewer unless the inviter picks another role', async () => {
    const brand = await givenBrand(t.db);
    const agent = await signedInAgent(t.app, t.db, brand.brandId);
    const team = await agent.get('/dashboard/team');
    expect(team.text).toMatch(/<option value="viewer" selected>viewer<\/option>/);
    expect(team.text).not.toMatch(/<option value="admin" selected>/);
  });
});

describe('the dashboard inside the Shopify admin (embedded)', () => {
  async function linkedShop() {
    const brand = await givenBrand(t.db, { name: 'Embedded Brand' });
    const shop = `dash-${brand.brandId.slice(0, 8)}.myshopify.com`;
    await t.db('shopify_shops').insert({ brand_id: brand.brandId, shop_domain: shop, app_kind: 'public', status: 'installed' });
    return { brand, shop };
  }

  it('opens with a valid session token in id_token, framed only by the shop admin, with App Bridge from Shopify', async () => {
    const { shop } = await linkedShop();
    const token = shopifySessionToken({ shop, apiKey: SHOPIFY.SHOPIFY_API_KEY, apiSecret: SHOPIFY.SHOPIFY_API_SECRET });
    const page = await t.http.get(`/dashboard?embedded=1&shop=${shop}&host=abc&id_token=${token}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Embedded Brand');
    expect(page.text).toContain('<script src="https://cdn.shopify.com/shopifycloud/app-bridge.js"></script>');
    expect(page.text).toContain(`<meta name="shopify-api-key" content="${SHOPIFY.SHOPIFY_API_KEY}">`);
    expect(page.headers['content-security-policy']).toContain(`frame-ancestors https://${shop} https://admin.shopify.com`);
    expect(page.headers['x-frame-options']).toBeUndefined();
    expect(page.headers['set-cookie']).toBeUndefined();
    const bearer = await t.http.get('/dashboard/advocates').set('Authorization', `Bearer ${token}`);
    expect(bearer.status).toBe(200);
  });

  it('refuses a token signed with another secret, an expired one and one for an unlinked shop', async () => {
    const { shop } = await linkedShop();
    const forged = shopifySessionToken({ shop, apiKey: SHOPIFY.SHOPIFY_API_KEY, apiSecret: 'not-the-secret' });
    const refused = await t.http.get(`/dashboard?id_token=${forged}`);
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('the Shopify session token was refused');
    expect(refused.text).not.toContain(forged);
    const expired = shopifySessionToken({ shop, apiKey: SHOPIFY.SHOPIFY_API_KEY, apiSecret: SHOPIFY.SHOPIFY_API_SECRET, expiresInSeconds: -60 });
    expect((await t.http.get('/dashboard').set('Authorization', `Bearer ${expired}`)).status).toBe(401);
    const otherApp = shopifySessionToken({ shop, apiKey: 'another-app', apiSecret: SHOPIFY.SHOPIFY_API_SECRET });
    expect((await t.http.get('/dashboard').set('Authorization', `Bearer ${otherApp}`)).status).toBe(401);
    const unlinked = shopifySessionToken({ shop: 'nobody-here.myshopify.com', apiKey: SHOPIFY.SHOPIFY_API_KEY, apiSecret: SHOPIFY.SHOPIFY_API_SECRET });
    const notLinked = await t.http.get('/dashboard').set('Authorization', `Bearer ${unlinked}`);
    expect(notLinked.status).toBe(403);
    expect(notLinked.text).toContain('nobody-here.myshopify.com is not connected to a brand');
  });
});

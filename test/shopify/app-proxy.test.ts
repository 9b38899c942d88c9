import { createHmac, randomBytes } from 'node:crypto';
import { updateBrand } from '../../core/brands/brand';
import { processInbox } from '../../connectors/shopify/process-inbox';
import { createApiKey } from '../../core/brands/api-keys';
import { givenAdvocate } from '../helpers/fixtures';
import { TEST_SECRET } from '../helpers/test-app';
import { SHOPIFY_API_SECRET, fixtureText, inboxRow, installApp, sendWebhook, setUpShopifyTests, uniqueShop, variant } from './shopify-test-kit';

const context = setUpShopifyTests();

/**
 * Shopify's app proxy signature, computed here from its documentation and not with the library
 * the service uses: the query's parameters other than `signature`, sorted by name, each written
 * `name=value` (a repeated name's values joined by commas), concatenated with no separator, then
 * HMAC-SHA256 with the app's secret, hex.
 */
function proxySignature(params: Array<[string, string]>, secret = SHOPIFY_API_SECRET): string {
  const grouped = new Map<string, string[]>();
  for (const [name, value] of params) if (name !== 'signature') grouped.set(name, [...(grouped.get(name) ?? []), value]);
  const message = [...grouped.keys()]
    .sort()
    .map((name) => `${name}=${grouped.get(name)!.join(',')}`)
    .join('');
  return createHmac('sha256', secret).update(message).digest('hex');
}

interface ProxyOptions {
  shop: string;
  customerId?: string;
  secret?: string;
  extra?: Array<[string, string]>;
}

/** The query Shopify adds when it forwards the store's /apps/referrals to the proxy URL, signed. */
function proxyParams(options: ProxyOptions): Array<[string, string]> {
  const params: Array<[string, string]> = [
    ['shop', options.shop],
    ['logged_in_customer_id', options.customerId ?? ''],
    ['path_prefix', '/apps/referrals'],
    ['timestamp', String(Math.floor(Date.now() / 1000))],
    ...(options.extra ?? []),
  ];
  return [...params, ['signature', proxySignature(params, options.secret)]];
}

const queryOf = (params: Array<[string, string]>) => new URLSearchParams(params).toString();

function proxyGet(options: ProxyOptions) {
  return context.app.http.get(`/shopify/proxy?${queryOf(proxyParams(options))}`);
}

function proxyJoin(options: ProxyOptions, form: Record<string, string>) {
  return context.app.http
    .post(`/shopify/proxy/join?${queryOf(proxyParams(options))}`)
    .set('Content-Type', 'application/x-www-form-urlencoded')
    .send(new URLSearchParams(form).toString());
}

const formTokenOf = (liquid: string) => /name="form_token" value="([^"]+)"/.exec(liquid)?.[1] ?? '';
const customerId = () => String(1_000_000 + randomBytes(3).readUIntBE(0, 3));

describe('the Shopify app proxy page (/apps/referrals → /shopify/proxy)', () => {
  let shop: string;
  let brandId: string;
  let apiKey: string | null;

  beforeAll(async () => {
    ({ shop, brandId, apiKey } = await installApp(context.app, context.fake));
  });

  it('asks a visitor who is not signed in to sign in, in the theme (application/liquid), and nothing else', async () => {
    const page = await proxyGet({ shop });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^application\/liquid/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain('href="/account/login?return_url=%2Fapps%2Freferrals"');
    expect(page.text).not.toContain('<form');
    expect(page.text).not.toContain('customer.');
  });

  it('offers a signed-in customer a one-click join: email and first name from Liquid, consent asked, posting to the proxy', async () => {
    const page = await proxyGet({ shop, customerId: customerId() });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^application\/liquid/);
    expect(page.text).toContain('action="/apps/referrals/join"');
    expect(page.text).toContain('value="{{ customer.email | escape }}"');
    expect(page.text).toContain('value="{{ customer.first_name | escape }}"');
    expect(page.text).toMatch(/<input type="checkbox" name="consent" value="yes" required>/);
    expect(formTokenOf(page.text)).not.toBe('');
  });

  it('joins a signed-in customer (advocate, consent, welcome email, mapping) and then shows their own code, link and figures', async () => {
    const customer = customerId();
    const email = `shopper-${randomBytes(4).toString('hex')}@example.com`;
    const form = await proxyGet({ shop, customerId: customer });
    const joined = await proxyJoin({ shop, customerId: customer }, { form_token: formTokenOf(form.text), email, first_name: 'Ada', consent: 'yes' });
    expect(joined.status).toBe(200);
    expect(joined.headers['content-type']).toMatch(/^application\/liquid/);

    const db = context.app.db;
    const advocate = await db('advocates').where({ brand_id: brandId, email_normalized: email }).first();
    expect(advocate.first_name).toBe('Ada');
    expect(advocate.consent_at).not.toBeNull();
    expect(await db('mail_messages').where({ brand_id: brandId, template: 'advocate_welcome', advocate_id: advocate.advocate_id })).toHaveLength(1);
    const mapping = await db('shopify_storefront_customers').where({ brand_id: brandId, shop_domain: shop, customer_id: customer });
    expect(mapping.map((row) => Number(row.advocate_id))).toEqual([Number(advocate.advocate_id)]);
    const code: string = (await db('referral_codes').where({ brand_id: brandId, advocate_id: advocate.advocate_id }).first()).code;
    expect(joined.text).toContain(`<strong id="referrals-code">${code}</strong>`);

    // Two friends' orders credited to them, through the API: one reward held, one approved and partly paid out (by hand: fulfilment payout).
    const headers = { 'X-API-Key': apiKey!, 'X-Brand-ID': brandId };
    await updateBrand(db, brandId, { reward_type: 'fixed', reward_value: 10, reward_hold_days: 30, reward_fulfilment: 'payout' });
    const held = await context.app.http.post('/api/v1/track/conversion').set(headers).send({ email: `friend-a-${customer}@example.com`, order_id: `proxy-${customer}-a`, order_value: 80, referral_code: code });
    expect(held.status).toBe(201);
    await updateBrand(db, brandId, { reward_value: 7.5, reward_hold_days: 0 });
    const approved = await context.app.http.post('/api/v1/track/conversion').set(headers).send({ email: `friend-b-${customer}@example.com`, order_id: `proxy-${customer}-b`, order_value: 50, referral_code: code });
    expect(approved.status).toBe(201);
    const [payout] = (await context.app.http.get('/api/v1/payouts').set(headers)).body.data.payouts.filter((line: { advocate_id: number }) => line.advocate_id === Number(advocate.advocate_id));
    const paid = await context.app.http.post('/api/v1/payouts/mark-paid').set(headers).send({ payouts: [{ payout_id: payout.payout_id, advocate_id: payout.advocate_id, amount: 2.5 }] });
    expect(paid.status).toBe(200);

    const page = await proxyGet({ shop, customerId: customer });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<strong id="referrals-code">${code}</strong>`);
    expect(page.text).toContain(`href="https://${shop}/discount/${code}?redirect=%2F%3Fref%3D${code}"`);
    expect(page.text).toContain('<dd id="referrals-friends">2</dd>');
    expect(page.text).toContain('<dd id="referrals-held">10.00 USD</dd>');
    expect(page.text).toContain('<dd id="referrals-approved">5.00 USD</dd>');
    expect(page.text).toContain('<dd id="referrals-paid">2.50 USD</dd>');
    expect(page.text).not.toContain('<form');
    expect(page.text).not.toContain('referrals-owed');

    // Issue 40: the paid order refunded in full takes back 7.50, 2.50 of it already paid: owed, in words, never "approved -2.50".
    expect((await context.app.http.post('/api/v1/track/refund').set(headers).send({ order_id: `proxy-${customer}-b`, refund_amount: 50, is_full_refund: true })).status).toBe(200);
    const owing = await proxyGet({ shop, customerId: customer });
    expect(owing.text).toContain('<dd id="referrals-approved">0.00 USD</dd>');
    expect(owing.text).toContain('<p id="referrals-owed">You owe 2.50 USD from a refunded order; it will be taken from your next rewards.</p>');

    // A coupon brand (issue 40): the next approved reward becomes a code, listed on the page from the moment it is written.
    await updateBrand(db, brandId, { reward_fulfilment: 'coupon', reward_value: 12.5 });
    expect((await context.app.http.post('/api/v1/track/conversion').set(headers).send({ email: `friend-c-${customer}@example.com`, order_id: `proxy-${customer}-c`, order_value: 50, referral_code: code })).status).toBe(201);
    const issue = await db('reward_issues').where({ brand_id: brandId, advocate_id: advocate.advocate_id }).first();
    expect(issue).toMatchObject({ amount: '10.00', status: 'pending' });
    const withCode = await proxyGet({ shop, customerId: customer });
    expect(withCode.text).toContain(`<li><strong>${issue.code}</strong>: 10.00 USD off, on its way: we will email it to you shortly</li>`);

    // Another signed-in customer sees a join form, never these figures.
    const stranger = await proxyGet({ shop, customerId: customerId() });
    expect(stranger.text).not.toContain(code);
    expect(stranger.text).toContain('id="referrals-join"');
  });

  it('never maps a customer to an address that had joined before, nor shows its code: its link goes to the address, and a deactivated one looks the same', async () => {
    // Issue 39, finding 2: a signed-in customer who typed another advocate's address was shown that advocate's code and link.
    const email = `earlier-${randomBytes(4).toString('hex')}@example.com`;
    const first = customerId();
    const form = await proxyGet({ shop, customerId: first });
    await proxyJoin({ shop, customerId: first }, { form_token: formTokenOf(form.text), email, first_name: 'Grace', consent: 'yes' });
    const db = context.app.db;
    const grace = await db('advocates').where({ brand_id: brandId, email_normalized: email }).first();
    const code: string = (await db('referral_codes').where({ brand_id: brandId, advocate_id: grace.advocate_id }).first()).code;
    const deactivated = await givenAdvocate(db, brandId, { first_name: 'Dee' });
    await db('advocates').where({ brand_id: brandId, advocate_id: deactivated.advocateId }).update({ status: 'deactivated' });

    const pages = [];
    for (const address of [email, deactivated.email]) {
      const intruder = customerId();
      const intruderForm = await proxyGet({ shop, customerId: intruder });
      const again = await proxyJoin({ shop, customerId: intruder }, { form_token: formTokenOf(intruderForm.text), email: address, first_name: 'Mallory', consent: 'yes' });
      expect(again.status).toBe(200);
      expect(again.text).toContain('id="referrals-check-email"');
      expect(again.text).not.toMatch(new RegExp(`${code}|${deactivated.code}|Grace|Dee|referrals-figures`));
      expect(await db('shopify_storefront_customers').where({ brand_id: brandId, customer_id: intruder })).toHaveLength(0);
      pages.push(again.text.replace(address, 'ADDRESS'));
    }
    expect(pages[1]).toBe(pages[0]);
    expect(await db('mail_messages').where({ brand_id: brandId, advocate_id: grace.advocate_id }).orderBy('message_id').pluck('template')).toEqual(['advocate_welcome']);
    // The welcome was written today: the link again waits for tomorrow (at most one email a day from a join); a day later it is sent.
    await db('mail_messages').where({ brand_id: brandId, advocate_id: grace.advocate_id }).update({ created_at: db.raw("now() - interval '25 hours'") });
    const later = customerId();
    const laterForm = await proxyGet({ shop, customerId: later });
    await proxyJoin({ shop, customerId: later }, { form_token: formTokenOf(laterForm.text), email, first_name: 'Mallory', consent: 'yes' });
    expect(await db('mail_messages').where({ brand_id: brandId, advocate_id: grace.advocate_id }).orderBy('message_id').pluck('template')).toEqual(['advocate_welcome', 'advocate_link_again']);
    expect(await db('mail_messages').where({ brand_id: brandId, advocate_id: deactivated.advocateId })).toHaveLength(0);
  });

  it('writes an advocate\'s own name as text, never as Liquid', async () => {
    const customer = customerId();
    const form = await proxyGet({ shop, customerId: customer });
    const email = `liquid-${randomBytes(4).toString('hex')}@example.com`;
    // (A name with a web address or "<" is refused since issue 39; braces, quotes and "&" are a name's.)
    const joined = await proxyJoin({ shop, customerId: customer }, { form_token: formTokenOf(form.text), email, first_name: `{{ customer }}{% if true %}"&'`, consent: 'yes' });
    expect(joined.status).toBe(200);
    expect(joined.text).toContain('Welcome, &#123;&#123; customer &#125;&#125;&#123;% if true %&#125;&#34;&#38;&#39;.');
    expect(joined.text).not.toContain('{{ customer }}');
  });

  it('refuses (401, nothing shown) a request whose parameter was changed after Shopify signed it', async () => {
    const params = proxyParams({ shop, customerId: customerId() });
    const tampered = params.map(([name, value]): [string, string] => (name === 'logged_in_customer_id' ? [name, '1'] : [name, value]));
    const page = await context.app.http.get(`/shopify/proxy?${queryOf(tampered)}`);
    expect(page.status).toBe(401);
    expect(page.text).not.toContain('referrals-page');
    // The same request as signed is accepted: only the change made it fail.
    expect((await context.app.http.get(`/shopify/proxy?${queryOf(params)}`)).status).toBe(200);
  });

  it('refuses (401) a request with no signature, signed with another secret, or with an extra parameter', async () => {
    const unsigned = proxyParams({ shop }).filter(([name]) => name !== 'signature');
    expect((await context.app.http.get(`/shopify/proxy?${queryOf(unsigned)}`)).status).toBe(401);
    expect((await proxyGet({ shop, secret: 'another-apps-secret' })).status).toBe(401);
    const added = [...proxyParams({ shop }), ['logged_in_customer_id', '42'] as [string, string]];
    expect((await context.app.http.get(`/shopify/proxy?${queryOf(added)}`)).status).toBe(401);
    // Repeated parameters are signed joined by commas, as Shopify does.
    expect((await proxyGet({ shop, extra: [['extra', '1'], ['extra', '2']] })).status).toBe(200);
  });

  it('refuses a join with no signed-in customer (401), without its form token (403), and a malformed email (400 naming the field)', async () => {
    const anonymous = await proxyJoin({ shop }, { email: 'a@example.com', first_name: 'A', consent: 'yes' });
    expect(anonymous.status).toBe(401);
    const customer = customerId();
    const forged = await proxyJoin({ shop, customerId: customer }, { email: 'forged@example.com', first_name: 'F', consent: 'yes' });
    expect(forged.status).toBe(403);
    const form = await proxyGet({ shop, customerId: customer });
    const malformed = await proxyJoin({ shop, customerId: customer }, { form_token: formTokenOf(form.text), email: 'not-an-email', first_name: 'B', consent: 'yes' });
    expect(malformed.status).toBe(400);
    expect(malformed.headers['content-type']).toMatch(/^application\/liquid/);
    expect(malformed.text).toMatch(/id="referrals-error">email must be an address that can receive mail/);
    // Issue 39, finding 8: a 207-character address every other route refuses (its local part is over 64) was taken here.
    const long = `${'a'.repeat(195)}@example.com`;
    const tooLong = await proxyJoin({ shop, customerId: customer }, { form_token: formTokenOf(form.text), email: long, first_name: 'B', consent: 'yes' });
    expect([tooLong.status, /id="referrals-error">([^<]*)/.exec(tooLong.text)?.[1]]).toEqual([400, expect.stringMatching(/^email must be an address that can receive mail/)]);
    const noConsent = await proxyJoin({ shop, customerId: customer }, { form_token: formTokenOf(form.text), email: 'b@example.com', first_name: 'B' });
    expect(noConsent.status).toBe(400);
    expect(noConsent.text).toContain('consent must be ticked');
    expect(await context.app.db('advocates').where({ brand_id: brandId }).whereIn('email_normalized', ['forged@example.com', 'not-an-email', 'b@example.com', `${'a'.repeat(195)}@example.com`])).toHaveLength(0);
  });

  it('answers 404 for a shop with no active brand, even when signed', async () => {
    expect((await proxyGet({ shop: uniqueShop() })).status).toBe(404);
    const other = await installApp(context.app, context.fake);
    await updateBrand(context.app.db, other.brandId, { status: 'uninstalled' });
    expect((await proxyGet({ shop: other.shop })).status).toBe(404);
  });
});

describe("the issue's walk on the fake Shopify: a landing, a join on the store's page, a friend's order", () => {
  it('records the landing visit, joins the customer from the proxy page with their code and link by email, and credits them for a friend\'s paid order with that code', async () => {
    const { shop, brandId } = await installApp(context.app, context.fake, uniqueShop(), 'premier');
    const store = `https://${shop}`;
    await updateBrand(context.app.db, brandId, { allowed_origins: [store], reward_type: 'fixed', reward_value: 5, reward_hold_days: 0 });
    const pk = await createApiKey(context.app.db, brandId, TEST_SECRET, 'theme', 'publishable');
    // A shopper lands from an existing advocate's share link: referrals.js records the visit with the publishable key.
    const referrer = await givenAdvocate(context.app.db, brandId, { first_name: 'Ann' });
    const landed = await context.app.http.post('/api/v1/track/visit').set({ 'X-API-Key': pk.api_key, 'X-Brand-ID': brandId, Origin: store }).send({ referral_code: referrer.code });
    expect(landed.status).toBe(200);
    expect(landed.headers['access-control-allow-origin']).toBe(store);

    // Signed in to the store, they join on its referral page (the app proxy).
    const customer = customerId();
    const page = await proxyGet({ shop, customerId: customer });
    const joined = await proxyJoin({ shop, customerId: customer }, { email: `cara-${customer}@example.com`, first_name: 'Cara', consent: 'yes', form_token: formTokenOf(page.text) });
    expect(joined.status).toBe(200);
    const advocate = await context.app.db('advocates').where({ brand_id: brandId, email_normalized: `cara-${customer}@example.com` }).first();
    const code: string = (await context.app.db('referral_codes').where({ brand_id: brandId, advocate_id: advocate.advocate_id }).first()).code;
    expect(joined.text).toContain(code);
    // Their code and link go out by email (the welcome email, with Shopify's discount link).
    expect(await context.app.db('mail_messages').where({ brand_id: brandId, template: 'advocate_welcome', advocate_id: advocate.advocate_id })).toHaveLength(1);

    // A friend pays an order with that code: the advocate is credited.
    const order = variant(fixtureText('order-with-discount-code.shopify-api-fixture.json'), (payload) => {
      payload.id = 7_700_000 + Number(customer.slice(-5));
      payload.email = `friend-${customer}@example.com`;
      payload.discount_codes = [{ code, amount: '10.00', type: 'fixed_amount' }];
    });
    await sendWebhook(context.app, order, { topic: 'orders/paid', shop, webhookId: `friend-order-${customer}` });
    await processInbox(context.app.db, { brandId });
    expect(await inboxRow(context.app.db, brandId, `friend-order-${customer}`)).toMatchObject({ outcome: 'conversion_recorded' });
    const figures = await proxyGet({ shop, customerId: customer });
    expect(figures.text).toMatch(/Friends referred[^0-9]*1/);
    const reward = await context.app.db('rewards').where({ brand_id: brandId, advocate_id: advocate.advocate_id }).first();
    expect(reward).toMatchObject({ status: 'approved' });
    expect(Number(reward.amount)).toBe(5);
  });
});

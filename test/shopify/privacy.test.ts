import { processInbox } from '../../connectors/shopify/process-inbox';
import { findBrand } from '../../core/brands/brand';
import { givenAdvocate } from '../helpers/fixtures';
import { fixtureText, inboxRow, installApp, referrals, sendWebhook, setUpShopifyTests, variant } from './shopify-test-kit';

const context = setUpShopifyTests();

const ORDER_WITH_TENOFF = fixtureText('order-with-discount-code.shopify-api-fixture.json');
const CUSTOMERS_REDACT = fixtureText('customers-redact.template-sample.json');
const CUSTOMERS_DATA_REQUEST = fixtureText('customers-data-request.template-sample.json');
const REFUNDS_CREATE = fixtureText('refunds-create.webhook-sample.json');

/** app/uninstalled carries the Shop object. */
function shopObject(shop: string): string {
  return JSON.stringify({ id: 548380009, name: 'Super Toys', email: 'super@supertoys.com', domain: null, myshopify_domain: shop, plan_name: 'basic' });
}

/** A premier shop with two referred orders: John's (order 299938, named in the privacy samples) and Mary's. */
async function shopWithJohnAndMary() {
  const installed = await installApp(context.app, context.fake, undefined, 'premier');
  await givenAdvocate(context.app.db, installed.brandId, { code: 'TENOFF' });
  const john = variant(ORDER_WITH_TENOFF, (order) => {
    order.id = 299938;
    order.email = 'john@example.com';
    order.contact_email = 'john@example.com';
    order.customer.email = 'john@example.com';
    order.customer.first_name = 'John';
    order.customer.last_name = 'Doe';
  });
  const mary = variant(ORDER_WITH_TENOFF, (order) => {
    order.id = 777001;
    order.email = 'mary@example.com';
    order.contact_email = null;
    order.customer.email = 'mary@example.com';
    order.customer.first_name = 'Mary';
  });
  await sendWebhook(context.app, john, { topic: 'orders/paid', shop: installed.shop, webhookId: 'john-order' });
  await sendWebhook(context.app, mary, { topic: 'orders/paid', shop: installed.shop, webhookId: 'mary-order' });
  await processInbox(context.app.db, { brandId: installed.brandId });
  return installed;
}

describe('app/uninstalled and the privacy topics', () => {
  it('app/uninstalled → the brand is marked uninstalled and the shop\'s sessions are deleted', async () => {
    const installed = await installApp(context.app, context.fake);
    expect(await context.app.db('shopify_sessions').where({ brand_id: installed.brandId })).toHaveLength(1);
    await sendWebhook(context.app, shopObject(installed.shop), { topic: 'app/uninstalled', shop: installed.shop, webhookId: 'bye' });
    await processInbox(context.app.db, { brandId: installed.brandId });
    expect(await inboxRow(context.app.db, installed.brandId, 'bye')).toMatchObject({ status: 'done', outcome: 'uninstalled', result: { sessions_deleted: 1 } });
    expect((await findBrand(context.app.db, installed.brandId))!.status).toBe('uninstalled');
    expect(await context.app.db('shopify_sessions').where({ brand_id: installed.brandId })).toEqual([]);
    expect(await context.app.db('shopify_shops').where({ brand_id: installed.brandId }).first()).toMatchObject({ status: 'uninstalled' });

    // Installing again brings the same brand back.
    const again = await installApp(context.app, context.fake, installed.shop);
    expect(again.brandId).toBe(installed.brandId);
    expect((await findBrand(context.app.db, installed.brandId))!.status).toBe('active');
    // The audit log shows the shop's install, uninstall and reinstall, by the shop (issue 39, 5: they were missing).
    const audit = await context.app.db('audit_log').where({ brand_id: installed.brandId }).orderBy('entry_id').select('actor', 'action', 'subject', 'after');
    expect(audit.map((entry) => [entry.actor, entry.action, entry.subject])).toEqual(
      ['shopify.install', 'shopify.uninstall', 'shopify.reinstall'].map((action) => [`Shopify (${installed.shop})`, action, `shop:${installed.shop}`]),
    );
    expect(JSON.stringify(audit)).not.toContain(installed.apiKey!);
  });

  it('an uninstall that happened before the latest install does not undo it', async () => {
    const installed = await installApp(context.app, context.fake);
    const earlier = new Date(Date.now() - 3600_000).toISOString();
    await sendWebhook(context.app, shopObject(installed.shop), { topic: 'app/uninstalled', shop: installed.shop, webhookId: 'late-bye', triggeredAt: earlier });
    await processInbox(context.app.db, { brandId: installed.brandId });
    expect(await inboxRow(context.app.db, installed.brandId, 'late-bye')).toMatchObject({ outcome: 'ignored: the shop reinstalled the app after this uninstall' });
    expect((await findBrand(context.app.db, installed.brandId))!.status).toBe('active');
    expect(await context.app.db('shopify_sessions').where({ brand_id: installed.brandId })).toHaveLength(1);
  });

  it('customers/data_request → an export of everything held about the customer, listed and printed by the CLI', async () => {
    const installed = await shopWithJohnAndMary();
    await sendWebhook(context.app, CUSTOMERS_DATA_REQUEST, { topic: 'customers/data_request', shop: installed.shop, webhookId: 'dr-1' });
    await processInbox(context.app.db, { brandId: installed.brandId });
    expect(await inboxRow(context.app.db, installed.brandId, 'dr-1')).toMatchObject({ status: 'done', outcome: 'data_export_ready' });

    const listed = await referrals(context.app, ['shopify', 'data-requests', '--brand', installed.brandId, '--json']);
    expect(listed.code).toBe(0);
    const { data_requests: requests } = JSON.parse(listed.stdout);
    expect(requests).toEqual([
      { id: expect.stringMatching(/^\d+$/), shop_domain: installed.shop, shopify_request_id: '9999', customer_email: 'john@example.com', created_at: expect.any(String) },
    ]);

    const printed = await referrals(context.app, ['shopify', 'data-request', '--brand', installed.brandId, '--id', requests[0].id, '--json']);
    expect(printed.code).toBe(0);
    const { export: data } = JSON.parse(printed.stdout);
    expect(data).toMatchObject({
      customer_email: 'john@example.com',
      orders: ['299938', '280263', '220458'],
      conversions: [{ order_id: '299938', email: 'john@example.com', customer_name: 'John Doe', order_value: '598.94', status: 'completed' }],
      claims: [{ order_id: '299938', email: 'john@example.com', status: 'converted', referral_code: 'TENOFF' }],
      advocate: null,
    });
    // The order's product lines are part of what we hold on John.
    expect(data.conversions[0].products.length).toBeGreaterThan(0);
    // The stored raw webhook body of John's order, byte for byte; not the request itself, nothing of Mary's.
    expect(data.webhook_deliveries.map((delivery: { webhook_id: string }) => delivery.webhook_id)).toEqual(['john-order']);
    const johnBody = (await inboxRow(context.app.db, installed.brandId, 'john-order'))!.body;
    expect(data.webhook_deliveries[0]).toMatchObject({ topic: 'orders/paid', body: johnBody });
    expect(data.webhook_deliveries[0].body).toContain('"id":299938');
    expect(printed.stdout).not.toContain('mary@example.com');
  });

  it('shopify data-request names a request the brand does not have (exit 1), and refuses an id that is not a number (exit 2)', async () => {
    const installed = await installApp(context.app, context.fake);
    const missing = await referrals(context.app, ['shopify', 'data-request', '--brand', installed.brandId, '--id', '987654']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`no data request 987654 for brand ${installed.brandId}`);
    const bad = await referrals(context.app, ['shopify', 'data-request', '--brand', installed.brandId, '--id', 'abc']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--id must be the number');
  });

  it('another brand cannot read a brand\'s data request', async () => {
    const installed = await shopWithJohnAndMary();
    await sendWebhook(context.app, CUSTOMERS_DATA_REQUEST, { topic: 'customers/data_request', shop: installed.shop });
    await processInbox(context.app.db, { brandId: installed.brandId });
    const [request] = JSON.parse((await referrals(context.app, ['shopify', 'data-requests', '--brand', installed.brandId, '--json'])).stdout).data_requests;
    const other = await installApp(context.app, context.fake);
    const attempt = await referrals(context.app, ['shopify', 'data-request', '--brand', other.brandId, '--id', request.id]);
    expect(attempt.code).toBe(1);
    expect(attempt.stdout).not.toContain('john@example.com');
  });

  it('customers/data_request and customers/redact find an email-less order by the Shopify customer id, with the webhook bodies about it', async () => {
    const installed = await installApp(context.app, context.fake, undefined, 'premier');
    const tenoff = await givenAdvocate(context.app.db, installed.brandId, { code: 'TENOFF' });
    // John (customer 191167) had joined on the store's referral page: the app proxy linked his id to an advocate.
    await context.app.db('shopify_storefront_customers').insert({ brand_id: installed.brandId, shop_domain: installed.shop, customer_id: '191167', advocate_id: tenoff.advocateId });
    // John (customer 191167 in the privacy samples) paid order 555001 without an email; the samples do not name it.
    const emailless = (orderId: number, customerId: number, phone: string) =>
      variant(ORDER_WITH_TENOFF, (order) => {
        order.id = orderId;
        order.email = null;
        order.contact_email = null;
        order.customer.email = null;
        order.customer.id = customerId;
        order.phone = phone;
      });
    await sendWebhook(context.app, emailless(555001, 191167, '+15556251199'), { topic: 'orders/paid', shop: installed.shop, webhookId: 'john-emailless' });
    await sendWebhook(context.app, variant(REFUNDS_CREATE, (refund) => (refund.order_id = 555001)), { topic: 'refunds/create', shop: installed.shop, webhookId: 'john-refund' });
    await sendWebhook(context.app, emailless(555002, 424242, '+15550000000'), { topic: 'orders/paid', shop: installed.shop, webhookId: 'someone-else' });
    await processInbox(context.app.db, { brandId: installed.brandId });
    expect(await inboxRow(context.app.db, installed.brandId, 'john-emailless')).toMatchObject({ outcome: 'conversion_recorded' });

    await sendWebhook(context.app, CUSTOMERS_DATA_REQUEST, { topic: 'customers/data_request', shop: installed.shop, webhookId: 'dr-emailless' });
    await processInbox(context.app.db, { brandId: installed.brandId });
    const [request] = JSON.parse((await referrals(context.app, ['shopify', 'data-requests', '--brand', installed.brandId, '--json'])).stdout).data_requests;
    const { export: data } = JSON.parse((await referrals(context.app, ['shopify', 'data-request', '--brand', installed.brandId, '--id', request.id, '--json'])).stdout);
    expect(data.conversions).toMatchObject([{ order_id: '555001', email: null, referral_code: 'TENOFF', metadata: { customer: { id: '191167', phone: '+15556251199' } } }]);
    expect(data.webhook_deliveries.map((delivery: { webhook_id: string }) => delivery.webhook_id).sort()).toEqual(['john-emailless', 'john-refund']);

    await sendWebhook(context.app, CUSTOMERS_REDACT, { topic: 'customers/redact', shop: installed.shop, webhookId: 'redact-emailless' });
    await processInbox(context.app.db, { brandId: installed.brandId });
    // Emptied: the order's and the refund's bodies, and the two requests naming John's email.
    expect(await inboxRow(context.app.db, installed.brandId, 'redact-emailless')).toMatchObject({ outcome: 'customer_redacted', result: { conversions: 1, deliveries: 4, data_requests: 1, storefront_links: 1 } });
    expect(await context.app.db('shopify_storefront_customers').where({ brand_id: installed.brandId })).toHaveLength(0);
    const john = await context.app.db('conversions').where({ brand_id: installed.brandId, order_id: '555001' }).first();
    expect(john).toMatchObject({ order_value: '598.94', customer_name: null });
    expect(john.metadata.customer).toBeUndefined();
    expect((await inboxRow(context.app.db, installed.brandId, 'john-emailless'))!.body).toBe('{"redacted":true}');
    expect((await inboxRow(context.app.db, installed.brandId, 'john-refund'))!.body).toBe('{"redacted":true}');
    // The other customer's order is untouched.
    const other = await context.app.db('conversions').where({ brand_id: installed.brandId, order_id: '555002' }).first();
    expect(other.metadata.customer).toEqual({ id: '424242', phone: '+15550000000' });
    expect((await inboxRow(context.app.db, installed.brandId, 'someone-else'))!.body).toContain('+15550000000');
  });

  it('customers/redact deletes the data-request exports made for that customer', async () => {
    const installed = await shopWithJohnAndMary();
    await sendWebhook(context.app, CUSTOMERS_DATA_REQUEST, { topic: 'customers/data_request', shop: installed.shop });
    await processInbox(context.app.db, { brandId: installed.brandId });
    await sendWebhook(context.app, CUSTOMERS_REDACT, { topic: 'customers/redact', shop: installed.shop, webhookId: 'redact-after-export' });
    await processInbox(context.app.db, { brandId: installed.brandId });
    expect(await inboxRow(context.app.db, installed.brandId, 'redact-after-export')).toMatchObject({ outcome: 'customer_redacted', result: { data_requests: 1 } });
    const listed = await referrals(context.app, ['shopify', 'data-requests', '--brand', installed.brandId, '--json']);
    expect(JSON.parse(listed.stdout)).toEqual({ data_requests: [] });
  });

  it('customers/redact → the customer\'s personal data is anonymized in our records; the money stays', async () => {
    const installed = await shopWithJohnAndMary();
    const johnBefore = await context.app.db('conversions').where({ brand_id: installed.brandId, order_id: '299938' }).first();
    await sendWebhook(context.app, CUSTOMERS_REDACT, { topic: 'customers/redact', shop: installed.shop, webhookId: 'redact-john' });
    await processInbox(context.app.db, { brandId: installed.brandId });
    expect(await inboxRow(context.app.db, installed.brandId, 'redact-john')).toMatchObject({
      status: 'done',
      outcome: 'customer_redacted',
      result: { conversions: 1, claims: 1, advocates: 0 },
    });

    const john = await context.app.db('conversions').where({ brand_id: installed.brandId, order_id: '299938' }).first();
    expect(john.email).toMatch(/^redacted-[0-9a-f-]+@redacted\.invalid$/);
    expect(john).toMatchObject({ customer_name: null, visitor_id: null, order_value: johnBefore.order_value, referrer_reward_paid: johnBefore.referrer_reward_paid });
    const claim = await context.app.db('claims').where({ brand_id: installed.brandId, claim_id: john.claim_id }).first();
    expect(claim).toMatchObject({ customer_name: null, phone: null });
    expect(claim.email).toMatch(/@redacted\.invalid$/);
    // The webhook bodies that carried John's data are emptied, the redact request's own too.
    expect((await inboxRow(context.app.db, installed.brandId, 'john-order'))!.body).toBe('{"redacted":true}');
    expect((await inboxRow(context.app.db, installed.brandId, 'redact-john'))!.body).toBe('{"redacted":true}');
    const everything = JSON.stringify(await context.app.db('shopify_inbox').where({ brand_id: installed.brandId })) + JSON.stringify(await context.app.db('conversions').where({ brand_id: installed.brandId }));
    expect(everything.toLowerCase()).not.toContain('john@example.com');

    // Mary is untouched.
    expect(await context.app.db('conversions').where({ brand_id: installed.brandId, order_id: '777001' }).first()).toMatchObject({ email: 'mary@example.com', customer_name: 'Mary Norman' });
    expect((await inboxRow(context.app.db, installed.brandId, 'mary-order'))!.body).toContain('mary@example.com');
  });

  it('customers/redact also anonymizes an advocate with that email', async () => {
    const installed = await installApp(context.app, context.fake);
    const advocate = await givenAdvocate(context.app.db, installed.brandId, { email: 'john@example.com', first_name: 'John' });
    await sendWebhook(context.app, CUSTOMERS_REDACT, { topic: 'customers/redact', shop: installed.shop });
    await processInbox(context.app.db, { brandId: installed.brandId });
    const row = await context.app.db('advocates').where({ brand_id: installed.brandId, advocate_id: advocate.advocateId }).first();
    expect(row).toMatchObject({ first_name: 'Redacted', last_name: null });
    expect(row.email).toMatch(/@redacted\.invalid$/);
    expect(await context.app.db('referral_codes').where({ brand_id: installed.brandId, advocate_id: advocate.advocateId })).toHaveLength(1);
  });

  it('shop/redact → the shop\'s data is deleted: the brand the install created, with everything in it', async () => {
    const installed = await shopWithJohnAndMary();
    await sendWebhook(context.app, shopObject(installed.shop), { topic: 'app/uninstalled', shop: installed.shop });
    await processInbox(context.app.db, { brandId: installed.brandId });
    const redact = JSON.stringify({ shop_id: 954889, shop_domain: installed.shop });
    const response = await sendWebhook(context.app, redact, { topic: 'shop/redact', shop: installed.shop, webhookId: 'shop-gone' });
    expect(response.status).toBe(200);
    await processInbox(context.app.db, { brandId: installed.brandId });

    expect(await findBrand(context.app.db, installed.brandId)).toBeNull();
    for (const table of ['api_keys', 'advocates', 'referral_codes', 'claims', 'conversions', 'conversion_products', 'reward_ledger', 'shopify_shops', 'shopify_sessions', 'shopify_inbox']) {
      expect([table, await context.app.db(table).where({ brand_id: installed.brandId })]).toEqual([table, []]);
    }
    // A repeat of the request finds no shop: acknowledged, nothing kept.
    const repeat = await sendWebhook(context.app, redact, { topic: 'shop/redact', shop: installed.shop });
    expect(repeat.body.data).toMatchObject({ accepted: false });
  });

  it('shop/redact deletes the shop\'s data even when app/uninstalled never arrived', async () => {
    const installed = await shopWithJohnAndMary();
    // Installed three days ago; the uninstall that shop/redact follows (by 48 h) was never delivered.
    await context.app.db('shopify_shops').where({ brand_id: installed.brandId }).update({ installed_at: new Date(Date.now() - 3 * 86400_000) });
    expect(await context.app.db('shopify_shops').where({ brand_id: installed.brandId }).first()).toMatchObject({ status: 'installed' });
    const response = await sendWebhook(context.app, JSON.stringify({ shop_id: 954889, shop_domain: installed.shop }), { topic: 'shop/redact', shop: installed.shop, webhookId: 'redact-alone' });
    expect(response.body.data).toMatchObject({ accepted: true });
    await processInbox(context.app.db, { brandId: installed.brandId });

    expect(await findBrand(context.app.db, installed.brandId)).toBeNull();
    for (const table of ['conversions', 'claims', 'advocates', 'shopify_shops', 'shopify_sessions', 'shopify_inbox', 'shopify_data_requests']) {
      expect([table, await context.app.db(table).where({ brand_id: installed.brandId })]).toEqual([table, []]);
    }
  });

  it('shop/redact is ignored while the app is installed again', async () => {
    const installed = await installApp(context.app, context.fake);
    await sendWebhook(context.app, JSON.stringify({ shop_id: 1, shop_domain: installed.shop }), { topic: 'shop/redact', shop: installed.shop, webhookId: 'too-late' });
    await processInbox(context.app.db, { brandId: installed.brandId });
    expect(await inboxRow(context.app.db, installed.brandId, 'too-late')).toMatchObject({ outcome: 'ignored: the shop has the app installed again' });
    expect(await findBrand(context.app.db, installed.brandId)).not.toBeNull();
  });
});

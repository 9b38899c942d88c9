import { rewardBalance } from '../../core/ledger/reward-ledger';
import { configureConnectors } from '../../server/connectors';
import type { WebhookSettings } from '../../server/webhooks/webhook-settings';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { shopifySessionToken } from '../helpers/shopify-session-token';
import { type TestApp, startTestApp } from '../helpers/test-app';
import { type Receiver, startReceiver } from '../webhooks/receiver';
import { csrfTokenOf, signedInAgent } from './dashboard-helpers';

/** Local receivers are on 127.0.0.1: allowed here (a second app below keeps the production policy). */
const SETTINGS: WebhookSettings = { allowPrivate: true, timeoutMs: 2_000, workerIntervalMs: 50, retryScale: 0.001, disableAfterFailures: 50, disableAfterDays: 5 };

let t: TestApp;
const receivers: Receiver[] = [];
beforeAll(async () => {
  t = await startTestApp({ webhooks: SETTINGS });
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

/** A brand paying 10.00 per order; one order of 100 from a disposable address, held for review; a signed-in agent. */
async function heldOrder(fields: object = {}) {
  const brand = await givenBrand(t.db, { reward_type: 'fixed', reward_value: 10, reward_hold_days: 0 });
  const advocate = await givenAdvocate(t.db, brand.brandId);
  const orderId = uniqueOrderId();
  const sent = await t.http.post('/api/v1/track/conversion').set(brand.headers)
    .send({ email: 'shopper@mailinator.com', order_id: orderId, order_value: 100, referral_code: advocate.code, ...fields });
  expect(sent.status).toBe(201);
  expect(sent.body.data.review).toMatchObject({ status: 'open' });
  const agent = await signedInAgent(t.app, t.db, brand.brandId);
  const page = await agent.get('/dashboard/reviews');
  expect(page.status).toBe(200);
  return { brand, advocate, orderId, agent, csrf: csrfTokenOf(page.text), reviewId: sent.body.data.review.review_id as number, conversionId: sent.body.data.id as number };
}

const reviewRow = (brandId: string, reviewId: number) => t.db('referral_reviews').where({ brand_id: brandId, review_id: reviewId }).first();
const balance = (brandId: string, advocateId: number) => rewardBalance(t.db, brandId, advocateId).then((b) => b.balance);

describe('the Reviews page', () => {
  it('lists the open review with its order, email, amount and currency, referral code and reasons, and the nav item is current', async () => {
    const { agent, orderId, advocate, reviewId } = await heldOrder();
    const page = await agent.get('/dashboard/reviews');
    expect(page.text).toContain('<a href="/dashboard/reviews" aria-current="page">Reviews</a>');
    expect(page.text).toContain(`Review ${reviewId} · order ${orderId}`);
    expect(page.text).toContain('<dd data-field="amount">100.00 USD</dd>');
    expect(page.text).toContain('shopper@mailinator.com');
    expect(page.text).toContain(`<dd>${advocate.code}</dd>`);
    expect(page.text).toContain('<strong>Disposable email address</strong>: mailinator.com is a disposable email provider');
    expect(page.text).toContain(`Approve review ${reviewId}`);
    expect(page.text).toContain(`Reject review ${reviewId}`);
  });

  it('shows an order in another currency with that currency’s decimals', async () => {
    const { agent } = await heldOrder({ order_value: 12000, currency: 'JPY', exchange_rate: '0.0067' });
    const page = await agent.get('/dashboard/reviews');
    expect(page.text).toContain('<dd data-field="amount">12,000 JPY</dd>');
  });

  it('approves through the page as the REST API would: reward credited once, decided by the operator who signed in, then back to the queue with a notice', async () => {
    const { brand, advocate, agent, csrf, reviewId } = await heldOrder();
    const approved = await agent.post(`/dashboard/reviews/${reviewId}/approve`).type('form').send({ csrf_token: csrf, note: 'known customer', back_status: 'open' });
    expect(approved.status).toBe(303);
    expect(approved.headers.location).toBe(`/dashboard/reviews?status=open&done=approved&review=${reviewId}`);
    expect(await reviewRow(brand.brandId, reviewId)).toMatchObject({ status: 'approved', decided_by: 'operator (CLI sign-in link)', note: 'known customer' });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(10);

    const after = await agent.get(approved.headers.location!);
    expect(after.text).toContain(`Review ${reviewId} approved.`);
    expect(after.text).toContain('No open reviews: nothing is waiting for a decision.');
    const decided = await agent.get('/dashboard/reviews?status=approved');
    expect(decided.text).toContain(`Review ${reviewId} · order`);
    expect(decided.text).toContain('approved by operator (CLI sign-in link)');
    expect(decided.text).not.toContain(`Approve review ${reviewId}`);
  });

  it('rejects through the page: the reward is voided with the reason, the balance stays 0', async () => {
    const { brand, advocate, agent, csrf, reviewId, conversionId } = await heldOrder();
    const rejected = await agent.post(`/dashboard/reviews/${reviewId}/reject`).type('form').send({ csrf_token: csrf, reason: 'same household' });
    expect(rejected.status).toBe(303);
    expect(await reviewRow(brand.brandId, reviewId)).toMatchObject({ status: 'rejected', decided_by: 'operator (CLI sign-in link)', note: 'same household' });
    expect(await t.db('rewards').where({ brand_id: brand.brandId, conversion_id: conversionId }).first()).toMatchObject({ status: 'voided', void_reason: 'fraud review rejected: same household' });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(0);
  });

  it('answers a second decision with 409 and a message on the page, crediting nothing more', async () => {
    const { brand, advocate, agent, csrf, reviewId } = await heldOrder();
    expect((await agent.post(`/dashboard/reviews/${reviewId}/approve`).type('form').send({ csrf_token: csrf })).status).toBe(303);
    const again = await agent.post(`/dashboard/reviews/${reviewId}/reject`).type('form').send({ csrf_token: csrf, reason: 'changed my mind' });
    expect(again.status).toBe(409);
    expect(again.headers['content-type']).toMatch(/text\/html/);
    expect(again.text).toContain(`<p class="error" role="alert">review ${reviewId} was already approved</p>`);
    expect(again.text).toContain('<h1>Reviews</h1>');
    expect(await reviewRow(brand.brandId, reviewId)).toMatchObject({ status: 'approved' });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(10);
  });

  it('refuses a rejection without a reason with 400 naming reason, and changes nothing', async () => {
    const { brand, agent, csrf, reviewId } = await heldOrder();
    const empty = await agent.post(`/dashboard/reviews/${reviewId}/reject`).type('form').send({ csrf_token: csrf, reason: '  ' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('reason: must not be empty');
    expect(await reviewRow(brand.brandId, reviewId)).toMatchObject({ status: 'open' });
  });

  it('refuses approve and reject posted without the session’s CSRF token (403) and leaves the review open', async () => {
    const { brand, agent, csrf, reviewId } = await heldOrder();
    const noToken = await agent.post(`/dashboard/reviews/${reviewId}/approve`).type('form').send({ note: 'x' });
    expect(noToken.status).toBe(403);
    expect(noToken.text).toContain('CSRF token is missing or wrong');
    const wrongToken = await agent.post(`/dashboard/reviews/${reviewId}/reject`).type('form').send({ csrf_token: `${csrf.slice(0, -2)}xx`, reason: 'x' });
    expect(wrongToken.status).toBe(403);
    expect(await reviewRow(brand.brandId, reviewId)).toMatchObject({ status: 'open', decided_by: null });
  });

  it('answers 404 for another brand’s review and changes nothing', async () => {
    const { brand, reviewId } = await heldOrder();
    const stranger = await givenBrand(t.db);
    const strangerAgent = await signedInAgent(t.app, t.db, stranger.brandId);
    const csrf = csrfTokenOf((await strangerAgent.get('/dashboard/reviews')).text);
    const approved = await strangerAgent.post(`/dashboard/reviews/${reviewId}/approve`).type('form').send({ csrf_token: csrf });
    expect(approved.status).toBe(404);
    expect(approved.text).toContain(`review ${reviewId} not found`);
    expect((await strangerAgent.get('/dashboard/reviews')).text).not.toContain(`Review ${reviewId} `);
    expect(await reviewRow(brand.brandId, reviewId)).toMatchObject({ status: 'open' });
  });

  it('escapes hostile strings: an order id and a rejection reason with markup are shown as text', async () => {
    const { agent, csrf, reviewId } = await heldOrder({ order_id: `<img src=x onerror=alert(1)>-${Date.now()}` });
    const rejected = await agent.post(`/dashboard/reviews/${reviewId}/reject`).type('form').send({ csrf_token: csrf, reason: '<script>alert("x")</script>' });
    expect(rejected.status).toBe(303);
    const page = await agent.get('/dashboard/reviews?status=rejected');
    expect(page.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(page.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.text).not.toContain('<script>alert');
    expect(page.text).not.toContain('<img src=x');
  });

  it('pages 25 reviews at a time, open first, and exports every review of the filter as CSV', async () => {
    const { brand, agent, csrf, reviewId, advocate } = await heldOrder();
    for (let i = 0; i < 25; i += 1) {
      const sent = await t.http.post('/api/v1/track/conversion').set(brand.headers)
        .send({ email: `buyer${i}@mailinator.com`, order_id: uniqueOrderId(), order_value: 20, referral_code: advocate.code });
      expect(sent.status).toBe(201);
    }
    // The oldest review decided: with “all” it moves after the 25 open ones, to page 2.
    expect((await agent.post(`/dashboard/reviews/${reviewId}/approve`).type('form').send({ csrf_token: csrf })).status).toBe(303);
    const first = await agent.get('/dashboard/reviews?status=all');
    expect(first.text.match(/<article class="review"/g)).toHaveLength(25);
    expect(first.text).not.toContain(`Review ${reviewId} ·`);
    expect(first.text).toContain('href="/dashboard/reviews?status=all&amp;page=2" rel="next"');
    const second = await agent.get('/dashboard/reviews?status=all&page=2');
    expect(second.text.match(/<article class="review"/g)).toHaveLength(1);
    expect(second.text).toContain(`Review ${reviewId} ·`);

    const csv = await agent.get('/dashboard/reviews?status=open&format=csv');
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('review_id,status,created_at,order_id,email,order_value,currency,referral_code,advocate_email,reasons,decided_by,decided_at,note');
    expect(lines).toHaveLength(26);
    expect(lines[1]).toContain(',open,');
    expect(lines[1]).toContain(',20.00,USD,');
  });

  it('answers a bad filter with 400 naming status', async () => {
    const { agent } = await heldOrder();
    const bad = await agent.get('/dashboard/reviews?status=maybe');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('status must be open, approved, rejected or all');
  });
});

/** A brand with a signed-in agent on its Connections page. */
async function connections(app: TestApp = t) {
  const brand = await givenBrand(app.db);
  const agent = await signedInAgent(app.app, app.db, brand.brandId);
  const page = await agent.get('/dashboard/connections');
  expect(page.status).toBe(200);
  return { brand, agent, csrf: csrfTokenOf(page.text) };
}

const endpointsOf = (brandId: string) => t.db('webhook_endpoints').where({ brand_id: brandId });

describe('Connections → Outbound webhooks', () => {
  it('adds an endpoint, redirects, and shows its signing secret once: a reload of the page does not, nor the cookie that carried it', async () => {
    const { brand, agent, csrf } = await connections();
    const added = await agent.post('/dashboard/connections/webhooks').type('form')
      .send(`csrf_token=${csrf}&url=${encodeURIComponent('https://hooks.example.com/referrals')}&events=conversion.created&events=reward.credited&description=ERP`);
    expect(added.status).toBe(303);
    const stored = await endpointsOf(brand.brandId);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ url: 'https://hooks.example.com/referrals', events: ['conversion.created', 'reward.credited'], description: 'ERP', status: 'active' });
    expect(added.headers.location).toBe(`/dashboard/connections?created=${stored[0].endpoint_id}`);
    const flashCookie = (added.headers['set-cookie'] as unknown as string[]).find((cookie) => cookie.startsWith('referrals_new_secret='))!;
    expect(flashCookie).toMatch(/path=\/dashboard\/connections/);
    expect(flashCookie).toMatch(/httponly/i);
    expect(flashCookie).not.toContain('whsec_');

    const shown = await agent.get(added.headers.location!);
    expect(shown.status).toBe(200);
    const secret = /id="new-secret" class="secret-value" value="(whsec_[^"]+)"/.exec(shown.text)?.[1];
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{44}$/);
    expect(stored[0].secret_encrypted).not.toContain(secret!.slice(6));
    expect(shown.text).toContain('shown <strong>only this once</strong>');

    const reloaded = await agent.get(added.headers.location!);
    expect(reloaded.text).not.toContain(secret!);
    expect(reloaded.text).not.toContain('whsec_');
    expect(reloaded.text).toContain('https://hooks.example.com/referrals');
    expect(reloaded.text).toContain('conversion.created, reward.credited');
    expect(reloaded.text).toContain('None yet');
    // The add form's own address, opened later, is Connections.
    const reopened = await agent.get('/dashboard/connections/webhooks');
    expect(reopened.status).toBe(303);
    expect(reopened.headers.location).toBe('/dashboard/connections');
  });

  it('shows no secret for a created id the cookie does not carry', async () => {
    const { agent, csrf } = await connections();
    const added = await agent.post('/dashboard/connections/webhooks').type('form').send({ csrf_token: csrf, url: 'https://first.example.com/hook' });
    const other = await agent.get('/dashboard/connections?created=ep_someoneelse');
    expect(other.text).not.toContain('whsec_');
    // The cookie went with that look: the real address shows nothing either.
    expect((await agent.get(added.headers.location!)).text).not.toContain('whsec_');
  });

  it('subscribes to every event when no box is ticked', async () => {
    const { brand, agent, csrf } = await connections();
    expect((await agent.post('/dashboard/connections/webhooks').type('form').send({ csrf_token: csrf, url: 'https://all.example.com/hook' })).status).toBe(303);
    expect((await endpointsOf(brand.brandId))[0]).toMatchObject({ events: null });
    expect((await agent.get('/dashboard/connections')).text).toContain('all events');
  });

  it('refuses a private URL without WEBHOOK_ALLOW_PRIVATE (400 naming url, form kept, nothing stored), and a bad event type naming events', async () => {
    const strict = await startTestApp({ webhooks: { ...SETTINGS, allowPrivate: false } }, t.db);
    const { brand, agent, csrf } = await connections(strict);
    const refused = await agent.post('/dashboard/connections/webhooks').type('form').send({ csrf_token: csrf, url: 'http://192.168.1.10/hook', description: 'lan' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('url points at a private, loopback or reserved address (192.168.1.10); set WEBHOOK_ALLOW_PRIVATE=true to allow it');
    expect(refused.text).toContain('value="http://192.168.1.10/hook"');
    expect(refused.text.match(/url points at a private/g)).toHaveLength(1);
    expect(refused.text).not.toContain('whsec_');
    const badEvent = await agent.post('/dashboard/connections/webhooks').type('form').send({ csrf_token: csrf, url: 'https://ok.example.com/hook', events: 'order.exploded' });
    expect(badEvent.status).toBe(400);
    expect(badEvent.text).toContain('events.0: must be one of claim.created');
    const notHttp = await agent.post('/dashboard/connections/webhooks').type('form').send({ csrf_token: csrf, url: 'ftp://files.example.com/x' });
    expect(notHttp.status).toBe(400);
    expect(notHttp.text).toContain('url must use http or https, not ftp');
    expect(await endpointsOf(brand.brandId)).toHaveLength(0);
  });

  it('sends a test event to a receiver and shows the outcome and the delivery log; replay adds a delivery of the same event', async () => {
    const local = await receiver();
    const { brand, agent, csrf } = await connections();
    expect((await agent.post('/dashboard/connections/webhooks').type('form').send({ csrf_token: csrf, url: local.url })).status).toBe(303);
    const [endpoint] = await endpointsOf(brand.brandId);
    const path = `/dashboard/connections/webhooks/${endpoint.endpoint_id}`;

    const tested = await agent.post(`${path}/test`).type('form').send({ csrf_token: csrf });
    expect(tested.status).toBe(303);
    expect(local.received).toHaveLength(1);
    expect(JSON.parse(local.received[0]!.body)).toMatchObject({ type: 'webhook.test' });
    const delivery = await t.db('webhook_deliveries').where({ brand_id: brand.brandId }).first();
    expect(tested.headers.location).toBe(`${path}?done=tested&delivery=${delivery.delivery_id}`);
    const shown = await agent.get(tested.headers.location!);
    expect(shown.text).toContain('Test event delivered: the receiver answered HTTP 200.');
    expect(shown.text).toContain(`<tr data-delivery="${delivery.delivery_id}">`);
    expect(shown.text).toMatch(/<span class="status status-delivered">delivered<\/span><\/td>\s*<td class="num">1<\/td>/);
    expect((await agent.get('/dashboard/connections')).text).toContain('webhook.test: delivered (HTTP 200)');

    const replayed = await agent.post(`${path}/deliveries/${delivery.delivery_id}/replay`).type('form').send({ csrf_token: csrf });
    expect(replayed.status).toBe(303);
    const deliveries = await t.db('webhook_deliveries').where({ brand_id: brand.brandId }).orderBy('delivery_id');
    expect(deliveries).toHaveLength(2);
    expect(deliveries[1]).toMatchObject({ event_id: delivery.event_id, replay_of: delivery.delivery_id, status: 'pending' });
    const after = await agent.get(replayed.headers.location!);
    expect(after.text).toContain(`Delivery ${delivery.delivery_id} is sent again as delivery ${deliveries[1].delivery_id} (same event id); it is pending.`);

    const csv = await agent.get(`${path}?format=csv`);
    expect(csv.text.trim().split('\r\n')).toHaveLength(3);
  });

  it('pages the delivery log 50 at a time, newest first, and refuses a bad page naming before', async () => {
    const { brand, agent, csrf } = await connections();
    await agent.post('/dashboard/connections/webhooks').type('form').send({ csrf_token: csrf, url: 'https://busy.example.com/hook' });
    const [endpoint] = await endpointsOf(brand.brandId);
    const events = Array.from({ length: 51 }, (_, i) => ({ brand_id: brand.brandId, event_id: `evt_page_${brand.brandId}_${i}`, type: 'conversion.created', payload: JSON.stringify({ n: i }) }));
    await t.db('webhook_events').insert(events);
    const ids: Array<{ delivery_id: string }> = await t.db('webhook_deliveries')
      .insert(events.map((event) => ({ brand_id: brand.brandId, endpoint_id: endpoint.endpoint_id, event_id: event.event_id, status: 'failed' })))
      .returning('delivery_id');
    const newest = Math.max(...ids.map((row) => Number(row.delivery_id)));
    const oldest = Math.min(...ids.map((row) => Number(row.delivery_id)));
    const path = `/dashboard/connections/webhooks/${endpoint.endpoint_id}`;
    const first = await agent.get(path);
    expect(first.text.match(/<tr data-delivery=/g)).toHaveLength(50);
    expect(first.text).toContain(`<tr data-delivery="${newest}">`);
    expect(first.text).not.toContain(`<tr data-delivery="${oldest}">`);
    expect(first.text).toContain(`href="${path}?before=${oldest + 1}" rel="next">Older →</a>`);
    const second = await agent.get(`${path}?before=${oldest + 1}`);
    expect(second.text.match(/<tr data-delivery=/g)).toHaveLength(1);
    expect(second.text).toContain(`<tr data-delivery="${oldest}">`);
    expect(second.text).not.toContain('Older →');
    expect(second.text).toContain('← Newest');
    const bad = await agent.get(`${path}?before=abc`);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('before must be a delivery id');
  });

  it('shows a failed test with the receiver’s answer', async () => {
    const local = await receiver();
    local.answer = () => ({ status: 500 });
    const { brand, agent, csrf } = await connections();
    await agent.post('/dashboard/connections/webhooks').type('form').send({ csrf_token: csrf, url: local.url });
    const [endpoint] = await endpointsOf(brand.brandId);
    const tested = await agent.post(`/dashboard/connections/webhooks/${endpoint.endpoint_id}/test`).type('form').send({ csrf_token: csrf });
    const shown = await agent.get(tested.headers.location!);
    expect(shown.text).toContain('<p class="error" role="alert">Test event not delivered: HTTP 500: ok.</p>');
  });

  it('shows a disabled endpoint’s reason and what to do, and enables it again', async () => {
    const { brand, agent, csrf } = await connections();
    await agent.post('/dashboard/connections/webhooks').type('form').send({ csrf_token: csrf, url: 'https://down.example.com/hook' });
    const [endpoint] = await endpointsOf(brand.brandId);
    await endpointsOf(brand.brandId).update({ status: 'disabled', disabled_reason: 'disabled after 50 consecutive failed attempts', disabled_at: new Date(), consecutive_failures: 50 });
    const listed = await agent.get('/dashboard/connections');
    expect(listed.text).toContain('disabled after 50 consecutive failed attempts');
    expect(listed.text).toContain('<strong>What to do:</strong> Fix the receiver at this URL (it must answer 2xx within 2 s');
    const path = `/dashboard/connections/webhooks/${endpoint.endpoint_id}`;
    expect((await agent.get(path)).text).toContain('>Enable</button>');
    const enabled = await agent.post(`${path}/enable`).type('form').send({ csrf_token: csrf });
    expect(enabled.status).toBe(303);
    expect((await endpointsOf(brand.brandId))[0]).toMatchObject({ status: 'active', disabled_reason: null, consecutive_failures: 0 });
    const page = await agent.get(enabled.headers.location!);
    expect(page.text).toContain('The endpoint is enabled again');
    expect(page.text).not.toContain('>Enable</button>');
  });

  it('removes an endpoint only with the confirmation ticked', async () => {
    const { brand, agent, csrf } = await connections();
    await agent.post('/dashboard/connections/webhooks').type('form').send({ csrf_token: csrf, url: 'https://gone.example.com/hook' });
    const [endpoint] = await endpointsOf(brand.brandId);
    const path = `/dashboard/connections/webhooks/${endpoint.endpoint_id}`;
    const unconfirmed = await agent.post(`${path}/remove`).type('form').send({ csrf_token: csrf });
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.text).toContain('confirm: tick “Yes, remove this endpoint and its delivery log” to go ahead; nothing was changed');
    expect(await endpointsOf(brand.brandId)).toHaveLength(1);
    const removed = await agent.post(`${path}/remove`).type('form').send({ csrf_token: csrf, confirm: 'yes' });
    expect(removed.status).toBe(303);
    expect(removed.headers.location).toBe('/dashboard/connections?done=removed');
    expect(await endpointsOf(brand.brandId)).toHaveLength(0);
    expect((await agent.get(removed.headers.location!)).text).toContain('The endpoint was removed, with its delivery log.');
  });

  it('refuses every webhook form posted without the CSRF token (403) and changes nothing', async () => {
    const { brand, agent, csrf } = await connections();
    await agent.post('/dashboard/connections/webhooks').type('form').send({ csrf_token: csrf, url: 'https://csrf.example.com/hook' });
    const [endpoint] = await endpointsOf(brand.brandId);
    await endpointsOf(brand.brandId).update({ status: 'disabled', disabled_reason: 'x' });
    const path = `/dashboard/connections/webhooks/${endpoint.endpoint_id}`;
    const forged = [
      agent.post('/dashboard/connections/webhooks').type('form').send({ url: 'https://evil.example.com/hook' }),
      agent.post(`${path}/test`).type('form').send({}),
      agent.post(`${path}/enable`).type('form').send({}),
      agent.post(`${path}/remove`).type('form').send({ confirm: 'yes' }),
      agent.post(`${path}/deliveries/1/replay`).type('form').send({ csrf_token: 'wrong' }),
    ];
    for (const response of await Promise.all(forged)) {
      expect(response.status).toBe(403);
      expect(response.text).toContain('CSRF token is missing or wrong');
    }
    expect(await endpointsOf(brand.brandId)).toEqual([expect.objectContaining({ url: 'https://csrf.example.com/hook', status: 'disabled' })]);
    expect(await t.db('webhook_deliveries').where({ brand_id: brand.brandId })).toHaveLength(0);
  });

  it('answers 404 for another brand’s endpoint and delivery, and changes nothing', async () => {
    const owner = await connections();
    await owner.agent.post('/dashboard/connections/webhooks').type('form').send({ csrf_token: owner.csrf, url: 'https://mine.example.com/hook' });
    const [endpoint] = await endpointsOf(owner.brand.brandId);
    const path = `/dashboard/connections/webhooks/${endpoint.endpoint_id}`;
    const { agent, csrf } = await connections();
    expect((await agent.get(path)).status).toBe(404);
    expect((await agent.get(`${path}?format=csv`)).status).toBe(404);
    for (const action of ['test', 'enable', 'remove']) {
      const response = await agent.post(`${path}/${action}`).type('form').send({ csrf_token: csrf, confirm: 'yes' });
      expect([action, response.status]).toEqual([action, 404]);
      expect(response.text).toContain(`webhook endpoint ${endpoint.endpoint_id} not found`);
    }
    expect((await agent.get('/dashboard/connections')).text).not.toContain('mine.example.com');
    expect(await endpointsOf(owner.brand.brandId)).toHaveLength(1);
    expect(await t.db('webhook_deliveries').where({ brand_id: owner.brand.brandId })).toHaveLength(0);
  });

  it('escapes an endpoint’s hostile description', async () => {
    const { agent, csrf } = await connections();
    await agent.post('/dashboard/connections/webhooks').type('form').send({ csrf_token: csrf, url: 'https://x.example.com/hook', description: '<script>alert(1)</script>' });
    const page = await agent.get('/dashboard/connections');
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.text).not.toContain('<script>alert');
  });
});

describe('the pages inside the Shopify admin (embedded)', () => {
  const SHOPIFY = { SHOPIFY_API_KEY: 'pages-test-key', SHOPIFY_API_SECRET: 'pages-test-secret', SHOPIFY_APP_URL: 'https://referrals.example.com' };

  it('decides a review by a form carrying the session token (no cookie, no CSRF token to forge), recorded as the Shopify user, and redirects with the embedded context', async () => {
    const embedded = await startTestApp({ webhooks: SETTINGS }, t.db, configureConnectors({ ...SHOPIFY }));
    const { brand, reviewId } = await heldOrder();
    const shop = `pages-${brand.brandId.slice(0, 8)}.myshopify.com`;
    await t.db('shopify_shops').insert({ brand_id: brand.brandId, shop_domain: shop, app_kind: 'public', status: 'installed' });
    const token = shopifySessionToken({ shop, apiKey: SHOPIFY.SHOPIFY_API_KEY, apiSecret: SHOPIFY.SHOPIFY_API_SECRET });
    const page = await embedded.http.get(`/dashboard/reviews?embedded=1&shop=${shop}&host=abc&id_token=${token}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`action="/dashboard/reviews/${reviewId}/approve?embedded=1&amp;shop=${shop}&amp;host=abc"`);

    const approved = await embedded.http.post(`/dashboard/reviews/${reviewId}/approve?embedded=1&shop=${shop}&host=abc&id_token=${token}`).type('form').send({ note: 'ok' });
    expect(approved.status).toBe(303);
    expect(approved.headers.location).toBe(`/dashboard/reviews?done=approved&review=${reviewId}&embedded=1&shop=${shop}&host=abc&id_token=${token}`);
    expect(await reviewRow(brand.brandId, reviewId)).toMatchObject({ status: 'approved', decided_by: `shopify user 42 (${shop})` });

    const withoutToken = await embedded.http.post(`/dashboard/reviews/${reviewId}/reject?embedded=1&shop=${shop}`).type('form').send({ reason: 'x' });
    expect(withoutToken.status).toBe(401);

    // No cookie to carry a secret across a redirect in the admin's frame: the answer is the page, 201, with it.
    const added = await embedded.http.post(`/dashboard/connections/webhooks?embedded=1&shop=${shop}&id_token=${token}`).type('form').send({ url: 'https://erp.example.com/hook' });
    expect(added.status).toBe(201);
    expect(added.text).toMatch(/id="new-secret" class="secret-value" value="whsec_/);
    expect(added.headers['set-cookie']).toBeUndefined();

    // The merchant's own pages work in the admin too, as an owner (Shopify decides who opens the app), recorded as the Shopify user.
    const settings = await embedded.http.get(`/dashboard/settings?embedded=1&shop=${shop}&host=abc&id_token=${token}`);
    expect(settings.status).toBe(200);
    expect(settings.text).toContain(`action="/dashboard/settings?embedded=1&amp;shop=${shop}&amp;host=abc"`);
    const key = await embedded.http.post(`/dashboard/keys?embedded=1&shop=${shop}&host=abc&id_token=${token}`).type('form').send({ label: 'erp' });
    expect(key.status).toBe(201);
    expect(key.text).toMatch(/id="new-key" class="secret-value" value="rk_/);
    expect(key.headers['set-cookie']).toBeUndefined();
    expect(await t.db('audit_log').where({ brand_id: brand.brandId, action: 'api_key.create' }).first()).toMatchObject({ actor: `shopify user 42 (${shop})` });

    // An import's progress page cannot refresh itself there (the token lasts a minute): dashboard.js reloads it with a fresh one.
    const imported = await embedded.http
      .post(`/dashboard/advocates/import?embedded=1&shop=${shop}&host=abc&id_token=${token}`)
      .attach('file', Buffer.from(`email,first_name\nembedded-${Date.now()}@example.com,Em\n`), 'advocates.csv');
    expect(imported.status).toBe(303);
    const progress = await embedded.http.get(imported.headers.location!);
    expect(progress.status).toBe(200);
    expect(progress.text).toContain('data-reload-while-running=');
    expect(progress.text).not.toContain('http-equiv="refresh"');
  });
});

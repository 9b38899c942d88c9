import { Webhook } from 'standardwebhooks';
import { decryptSecret } from '../../core/brands/key-encryption';
import { recordAttempt, takeDueDeliveries } from '../../core/webhooks/deliveries';
import { deliverDueWebhooks } from '../../server/webhooks/deliver-webhooks';
import type { WebhookSettings } from '../../server/webhooks/webhook-settings';
import { type TestBrand, givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type RealPostgres, realPostgres } from '../helpers/real-postgres';
import { hexHmacSha256 } from '../helpers/signed-convert';
import { TEST_SECRET, type TestApp, startTestApp } from '../helpers/test-app';
import { type OrderState, snapshotBody } from '../medusa/order-graphs';
import { type Receiver, startReceiver } from './receiver';

/** Local receivers are on 127.0.0.1: allowed here; retries shrunk 1000-fold (1 min → 60 ms). */
const SETTINGS: WebhookSettings = { allowPrivate: true, timeoutMs: 2_000, workerIntervalMs: 50, retryScale: 0.001, disableAfterFailures: 50, disableAfterDays: 5 };

let postgres: RealPostgres;
let t: TestApp;
const receivers: Receiver[] = [];
beforeAll(async () => {
  // A database of its own: a server another file spawns on the shared one runs its own delivery
  // worker, which would lease these deliveries (to 127.0.0.1, which it refuses) and hold them back.
  postgres = await realPostgres({ ownDatabase: true });
  t = await startTestApp({ webhooks: SETTINGS }, postgres.db);
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});
afterAll(() => postgres.close());

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

async function endpointFor(brand: TestBrand, url: string, extra: object = {}) {
  const response = await t.http.post('/api/v1/webhook-endpoints').set(brand.headers).send({ url, ...extra });
  expect(response.status).toBe(201);
  return response.body.data as { id: string; secret: string };
}

/** Runs delivery passes for one brand until nothing is due (retries wait their shrunk backoff), or `until` holds. */
async function deliver(brand: TestBrand, settings: WebhookSettings = SETTINGS, until?: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    await deliverDueWebhooks({ db: t.db, encryptionSecret: TEST_SECRET, settings }, brand.brandId);
    if (until ? await until() : (await pendingCount(brand)) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('deliveries still pending after 10 s');
}

async function pendingCount(brand: TestBrand): Promise<number> {
  const row = await t.db('webhook_deliveries').where({ brand_id: brand.brandId, status: 'pending' }).count({ count: '*' }).first();
  return Number(row?.count);
}

/** Each request verified with the standardwebhooks package, as a receiver would: the parsed payloads. */
function verified(received: Receiver['received'], secret: string) {
  const webhook = new Webhook(secret);
  return received.map((request) => webhook.verify(request.body, request.headers) as { id: string; type: string; timestamp: string; data: Record<string, unknown> });
}

async function premierBrandWithAdvocate(settings: Parameters<typeof givenBrand>[1] = {}) {
  const brand = await givenBrand(t.db, { plan: 'premier', reward_type: 'percentage', reward_value: 10, ...settings });
  const advocate = await givenAdvocate(t.db, brand.brandId);
  return { brand, advocate };
}

const conversion = (brand: TestBrand, body: object) => t.http.post('/api/v1/track/conversion').set(brand.headers).send(body);
const refund = (brand: TestBrand, body: object) => t.http.post('/api/v1/track/refund').set(brand.headers).send(body);

describe('outbound webhooks: events', () => {
  it('delivers claim.created, conversion.created and reward.credited, signed per Standard Webhooks', async () => {
    const { brand, advocate } = await premierBrandWithAdvocate();
    const hook = await receiver();
    const endpoint = await endpointFor(brand, hook.url);

    const claim = await t.http.post('/api/v1/track/claim').set(brand.headers).send({ referral_code: advocate.code, email: 'bob@example.com', raw_value: 80 });
    expect(claim.status).toBe(201);
    const orderId = uniqueOrderId();
    const converted = await conversion(brand, { email: 'bob@example.com', order_id: orderId, order_value: 120, referral_code: advocate.code });
    expect(converted.status).toBe(201);
    await deliver(brand);

    const events = verified(hook.received, endpoint.secret);
    expect(events.map((event) => event.type).sort()).toEqual(['claim.created', 'conversion.created', 'reward.credited']);
    const byType = Object.fromEntries(events.map((event) => [event.type, event]));
    expect(byType['claim.created']!.data).toEqual(claim.body.data);
    const { attributed: _attributed, duplicate: _duplicate, ...conversionView } = converted.body.data;
    expect(byType['conversion.created']!.data).toEqual(conversionView);
    expect(byType['reward.credited']!.data).toEqual({
      advocate_id: advocate.advocateId, conversion_id: converted.body.data.id, amount: 12, order_id: orderId, referral_code: advocate.code, reward_status: 'pending',
    });
    for (const [index, event] of events.entries()) {
      expect(event.id).toMatch(/^evt_[0-9a-f-]{36}$/);
      expect(hook.received[index]!.headers['webhook-id']).toBe(event.id);
      expect(hook.received[index]!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(hook.received[index]!.headers['content-type']).toBe('application/json');
    }
    const log = await t.http.get(`/api/v1/webhook-endpoints/${endpoint.id}/deliveries`).set(brand.headers);
    expect(log.body.data).toHaveLength(3);
    expect(log.body.data.every((delivery: { status: string; attempts: number; last_response_status: number; next_attempt_at: null }) =>
      delivery.status === 'delivered' && delivery.attempts === 1 && delivery.last_response_status === 200 && delivery.next_attempt_at === null)).toBe(true);
  });

  it('delivers conversion.refunded with cumulative amounts and reward.reversed, for a partial then a full refund', async () => {
    const { brand, advocate } = await premierBrandWithAdvocate();
    const orderId = uniqueOrderId();
    expect((await conversion(brand, { email: 'c@example.com', order_id: orderId, order_value: 100, referral_code: advocate.code })).status).toBe(201);
    const hook = await receiver();
    const endpoint = await endpointFor(brand, hook.url, { events: ['conversion.refunded', 'reward.reversed'] });

    const partial = await refund(brand, { order_id: orderId, refund_amount: 40, is_full_refund: false, refund_id: 'r-1' });
    const rest = await refund(brand, { order_id: orderId, refund_amount: 60, is_full_refund: false, refund_id: 'r-2' });
    expect([partial.status, rest.status]).toEqual([200, 200]);
    await deliver(brand);

    const events = verified(hook.received, endpoint.secret).sort((a, b) => a.timestamp.localeCompare(b.timestamp) || a.type.localeCompare(b.type));
    const refunds = events.filter((event) => event.type === 'conversion.refunded').map((event) => event.data);
    expect(refunds).toEqual([partial.body.data, rest.body.data]);
    expect(refunds.map((data) => [data.status, data.refund_amount, data.refunded_total, data.remaining])).toEqual([
      ['partial_refund', 40, 40, 60],
      ['refunded', 60, 100, 0],
    ]);
    const reversals = events.filter((event) => event.type === 'reward.reversed').map((event) => event.data);
    expect(reversals).toEqual([
      { advocate_id: advocate.advocateId, conversion_id: partial.body.data.conversion_id, amount: 4, refund_id: 'r-1', order_id: orderId, currency: 'USD', owed: 0 },
      { advocate_id: advocate.advocateId, conversion_id: partial.body.data.conversion_id, amount: 6, refund_id: 'r-2', order_id: orderId, currency: 'USD', owed: 0 },
    ]);
  });

  it('credits on a pending conversion upgraded to completed: reward.credited then, once', async () => {
    const { brand, advocate } = await premierBrandWithAdvocate();
    const hook = await receiver();
    const endpoint = await endpointFor(brand, hook.url, { events: ['reward.credited'] });
    const orderId = uniqueOrderId();
    const body = { email: 'p@example.com', order_id: orderId, order_value: 50, referral_code: advocate.code };
    expect((await conversion(brand, { ...body, status: 'pending' })).status).toBe(201);
    expect((await conversion(brand, { ...body, status: 'completed' })).status).toBe(200);
    expect((await conversion(brand, { ...body, status: 'completed' })).status).toBe(200);
    await deliver(brand);
    expect(verified(hook.received, endpoint.secret).map((event) => [event.type, event.data.amount])).toEqual([['reward.credited', 5]]);
  });

  it('emits nothing for a repeated conversion or refund, nor for a refund refused with 400', async () => {
    const { brand, advocate } = await premierBrandWithAdvocate();
    await endpointFor(brand, (await receiver()).url);
    const orderId = uniqueOrderId();
    const body = { email: 'd@example.com', order_id: orderId, order_value: 100, referral_code: advocate.code };
    expect((await conversion(brand, body)).status).toBe(201);
    const again = await conversion(brand, body);
    expect(again.status).toBe(200);
    expect(again.body.data.duplicate).toBe(true);
    await refund(brand, { order_id: orderId, refund_amount: 30, is_full_refund: false, refund_id: 'once' });
    expect((await refund(brand, { order_id: orderId, refund_amount: 30, is_full_refund: false, refund_id: 'once' })).body.data.duplicate).toBe(true);
    const beyond = await refund(brand, { order_id: orderId, refund_amount: 70.01, is_full_refund: false });
    expect(beyond.status).toBe(400);

    const events = await t.db('webhook_events').where({ brand_id: brand.brandId }).orderBy('created_at').pluck('type');
    expect(events.sort()).toEqual(['conversion.created', 'conversion.refunded', 'reward.credited', 'reward.reversed']);
  });

  it('honours the event filter: an endpoint subscribed to claim.created hears nothing of conversions', async () => {
    const { brand, advocate } = await premierBrandWithAdvocate();
    const claims = await receiver();
    const everything = await receiver();
    const claimsOnly = await endpointFor(brand, claims.url, { events: ['claim.created'] });
    await endpointFor(brand, everything.url);
    await t.http.post('/api/v1/track/claim').set(brand.headers).send({ referral_code: advocate.code, email: 'f@example.com', raw_value: 10 });
    await conversion(brand, { email: 'g@example.com', order_id: uniqueOrderId(), order_value: 10, referral_code: advocate.code });
    await deliver(brand);
    expect(verified(claims.received, claimsOnly.secret).map((event) => event.type)).toEqual(['claim.created']);
    expect(everything.received.map((request) => JSON.parse(request.body).type).sort()).toEqual(['claim.created', 'conversion.created', 'reward.credited']);
  });

  it('emits from a connector too: a Medusa paid order and its partial refund go through the same core', async () => {
    const { brand, advocate } = await premierBrandWithAdvocate({ currency: 'EUR' }); // the snapshots' currency_code
    const hook = await receiver();
    const endpoint = await endpointFor(brand, hook.url);
    const order: OrderState = { id: `order_${uniqueOrderId()}`, email: 'medusa@example.com', promotions: [{ code: advocate.code, discount: 7 }], paid: 'all' };
    const send = (body: string) =>
      t.http.post('/medusa/webhooks').set({ 'Content-Type': 'application/json', 'X-Brand-ID': brand.brandId, 'X-AL-Signature': hexHmacSha256(brand.apiKey, body) }).send(body);
    expect((await send(snapshotBody(order, { event_name: 'payment.captured' }))).status).toBe(200);
    const refunds = [{ id: 'ref_part', amount: 21, created_at: '2026-11-21T10:00:00Z' }];
    expect((await send(snapshotBody({ ...order, refunds }, { event_name: 'payment.refunded' }))).status).toBe(200);
    await deliver(brand);

    const events = verified(hook.received, endpoint.secret);
    expect(events.map((event) => event.type).sort()).toEqual(['claim.created', 'conversion.created', 'conversion.refunded', 'reward.credited', 'reward.reversed']);
    const refunded = events.find((event) => event.type === 'conversion.refunded')!.data;
    expect(refunded).toMatchObject({ refund_id: 'ref_part', refund_amount: 21, refunded_total: 21, status: 'partial_refund' });
    expect(events.find((event) => event.type === 'conversion.created')!.data).toMatchObject({ order_id: order.id });
  });

  it('hears of an endpoint added after the brand was known to have none (the cache is invalidated)', async () => {
    const { brand, advocate } = await premierBrandWithAdvocate();
    await conversion(brand, { email: 'h@example.com', order_id: uniqueOrderId(), order_value: 10, referral_code: advocate.code });
    expect(await t.db('webhook_events').where({ brand_id: brand.brandId })).toHaveLength(0);
    const hook = await receiver();
    await endpointFor(brand, hook.url, { events: ['conversion.created'] });
    await conversion(brand, { email: 'i@example.com', order_id: uniqueOrderId(), order_value: 10, referral_code: advocate.code });
    await deliver(brand);
    expect(hook.received.map((request) => JSON.parse(request.body).type)).toEqual(['conversion.created']);
  });
});

describe('outbound webhooks: retries, failures and replays', () => {
  it('retries a receiver that is down with backoff, and delivers when it comes back', async () => {
    const { brand, advocate } = await premierBrandWithAdvocate();
    const hook = await receiver();
    hook.answer = (_request, index) => ({ status: index < 2 ? 503 : 200 });
    const endpoint = await endpointFor(brand, hook.url, { events: ['conversion.created'] });
    await conversion(brand, { email: 'r@example.com', order_id: uniqueOrderId(), order_value: 10, referral_code: advocate.code });

    await deliverDueWebhooks({ db: t.db, encryptionSecret: TEST_SECRET, settings: SETTINGS }, brand.brandId);
    const [afterFirst] = (await t.http.get(`/api/v1/webhook-endpoints/${endpoint.id}/deliveries`).set(brand.headers)).body.data;
    expect(afterFirst).toMatchObject({ status: 'pending', attempts: 1, last_response_status: 503, last_error: 'HTTP 503: ok' });
    // The first retry waits 1 minute ± 20 %, shrunk 1000-fold here: 48 to 72 ms.
    const wait = Date.parse(afterFirst.next_attempt_at) - Date.parse(afterFirst.last_attempt_at);
    expect(wait).toBeGreaterThanOrEqual(45);
    expect(wait).toBeLessThanOrEqual(75);

    await deliver(brand);
    const [delivered] = (await t.http.get(`/api/v1/webhook-endpoints/${endpoint.id}/deliveries`).set(brand.headers)).body.data;
    expect(delivered).toMatchObject({ status: 'delivered', attempts: 3, last_response_status: 200, last_error: null });
    expect(new Set(hook.received.map((request) => request.headers['webhook-id'])).size).toBe(1);
    const endpointNow = (await t.http.get(`/api/v1/webhook-endpoints/${endpoint.id}`).set(brand.headers)).body.data;
    expect(endpointNow).toMatchObject({ status: 'active', consecutive_failures: 0, failing_since: null });
  });

  it('leaves a healthy endpoint\'s row alone on each further success (no lock queue, no dead row per delivery)', async () => {
    const { brand, advocate } = await premierBrandWithAdvocate();
    const hook = await receiver();
    const endpoint = await endpointFor(brand, hook.url, { events: ['conversion.created'] });
    const rowVersion = async () => (await t.db('webhook_endpoints').where({ brand_id: brand.brandId, endpoint_id: endpoint.id }).first(t.db.raw('xmin::text AS version'))).version;
    const before = await rowVersion();
    for (const email of ['h1@example.com', 'h2@example.com']) {
      await conversion(brand, { email, order_id: uniqueOrderId(), order_value: 10, referral_code: advocate.code });
    }
    await deliver(brand);
    expect(hook.received).toHaveLength(2);
    expect(await rowVersion()).toBe(before);
  });

  it('marks a delivery failed after its 8 attempts', async () => {
    const { brand, advocate } = await premierBrandWithAdvocate();
    const hook = await receiver();
    hook.answer = () => ({ status: 500 });
    const endpoint = await endpointFor(brand, hook.url, { events: ['conversion.created'] });
    await conversion(brand, { email: 's@example.com', order_id: uniqueOrderId(), order_value: 10, referral_code: advocate.code });
    // 1+5+30+120+300+600+840 minutes, shrunk 100,000-fold: about 1.2 s.
    await deliver(brand, { ...SETTINGS, retryScale: 0.00001 });
    expect(hook.received).toHaveLength(8);
    const [failed] = (await t.http.get(`/api/v1/webhook-endpoints/${endpoint.id}/deliveries`).set(brand.headers)).body.data;
    expect(failed).toMatchObject({ status: 'failed', attempts: 8, last_response_status: 500, next_attempt_at: null });
  });

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    const { brand, advocate } = await premierBrandWithAdvocate();
    const hook = await receiver();
    hook.answer = (request) => (request.path === '/hook' ? { status: 302, headers: { location: `${hook.url}/moved` } } : { status: 200 });
    const endpoint = await endpointFor(brand, hook.url, { events: ['conversion.created'] });
    await conversion(brand, { email: 'x@example.com', order_id: uniqueOrderId(), order_value: 10, referral_code: advocate.code });
    await deliverDueWebhooks({ db: t.db, encryptionSecret: TEST_SECRET, settings: SETTINGS }, brand.brandId);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(hook.received.map((request) => request.path)).toEqual(['/hook']);
    const [delivery] = (await t.http.get(`/api/v1/webhook-endpoints/${endpoint.id}/deliveries`).set(brand.headers)).body.data;
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, last_response_status: 302 });
    expect(delivery.last_error).toContain('redirects are not followed');
  });

  it('counts an answer slower than the timeout as a failed attempt', async () => {
    const { brand, advocate } = await premierBrandWithAdvocate();
    const hook = await receiver();
    hook.answer = () => ({ status: 200, delayMs: 1_000 });
    const endpoint = await endpointFor(brand, hook.url, { events: ['conversion.created'] });
    await conversion(brand, { email: 'y@example.com', order_id: uniqueOrderId(), order_value: 10, referral_code: advocate.code });
    const started = Date.now();
    await deliverDueWebhooks({ db: t.db, encryptionSecret: TEST_SECRET, settings: { ...SETTINGS, timeoutMs: 200 } }, brand.brandId);
    expect(Date.now() - started).toBeLessThan(900);
    const [delivery] = (await t.http.get(`/api/v1/webhook-endpoints/${endpoint.id}/deliveries`).set(brand.headers)).body.data;
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, last_response_status: null, last_error: 'timed out after 200 ms' });
  });

  it('disables an endpoint after N consecutive failed attempts, shows why, and re-enables it', async () => {
    const { brand, advocate } = await premierBrandWithAdvocate();
    const hook = await receiver();
    hook.answer = () => ({ status: 500 });
    const endpoint = await endpointFor(brand, hook.url, { events: ['conversion.created'] });
    for (const email of ['a1@example.com', 'a2@example.com', 'a3@example.com']) {
      await conversion(brand, { email, order_id: uniqueOrderId(), order_value: 10, referral_code: advocate.code });
    }
    const settings = { ...SETTINGS, disableAfterFailures: 3 };
    await deliverDueWebhooks({ db: t.db, encryptionSecret: TEST_SECRET, settings }, brand.brandId);
    expect(hook.received).toHaveLength(3);

    const list = await t.http.get('/api/v1/webhook-endpoints').set(brand.headers);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ id: endpoint.id, status: 'disabled', consecutive_failures: 3 });
    expect(list.body.data[0].disabled_reason).toMatch(/^disabled after 3 consecutive failed attempts \(failing since .+\); last error: HTTP 500: ok$/);
    // Disabled: its pending deliveries wait, and new events are not kept for it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await deliverDueWebhooks({ db: t.db, encryptionSecret: TEST_SECRET, settings }, brand.brandId);
    expect(hook.received).toHaveLength(3);
    expect(await pendingCount(brand)).toBe(3);

    hook.answer = () => ({ status: 204 });
    const enabled = await t.http.post(`/api/v1/webhook-endpoints/${endpoint.id}/enable`).set(brand.headers);
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toMatchObject({ status: 'active', disabled_reason: null, consecutive_failures: 0 });
    await deliver(brand, settings);
    expect(hook.received).toHaveLength(6);
  });

  it('disables an endpoint that has been failing for more than 5 days, however few its attempts', async () => {
    const { brand, advocate } = await premierBrandWithAdvocate();
    const hook = await receiver();
    hook.answer = () => ({ status: 410 });
    const endpoint = await endpointFor(brand, hook.url, { events: ['conversion.created'] });
    await t.db('webhook_endpoints')
      .where({ brand_id: brand.brandId, endpoint_id: endpoint.id })
      .update({ consecutive_failures: 4, failing_since: t.db.raw("now() - interval '5 days 1 minute'") });
    await conversion(brand, { email: 'old@example.com', order_id: uniqueOrderId(), order_value: 10, referral_code: advocate.code });
    await deliverDueWebhooks({ db: t.db, encryptionSecret: TEST_SECRET, settings: SETTINGS }, brand.brandId);
    const shown = (await t.http.get(`/api/v1/webhook-endpoints/${endpoint.id}`).set(brand.headers)).body.data;
    expect(shown).toMatchObject({ status: 'disabled', consecutive_failures: 5 });
    expect(shown.disabled_reason).toMatch(/^disabled after failing for more than 5 days \(failing since .+\); last error: HTTP 410: ok$/);
  });

  it('keeps the first outcome when a stalled worker reports after its lease ran out and another worker delivered', async () => {
    const { brand, advocate } = await premierBrandWithAdvocate();
    const endpoint = await endpointFor(brand, 'https://hooks.example.com/never-called', { events: ['conversion.created'] });
    await conversion(brand, { email: 'lease@example.com', order_id: uniqueOrderId(), order_value: 10, referral_code: advocate.code });
    const [stalled] = await takeDueDeliveries(t.db, { limit: 5, leaseSeconds: 0, brandId: brand.brandId });
    const [retaken] = await takeDueDeliveries(t.db, { limit: 5, leaseSeconds: 0, brandId: brand.brandId });
    expect(retaken!.delivery_id).toBe(stalled!.delivery_id);
    await recordAttempt(t.db, retaken!, { ok: true, status: 200, error: null }, SETTINGS);
    await recordAttempt(t.db, stalled!, { ok: false, status: null, error: 'timed out after 10000 ms' }, SETTINGS);
    const [delivery] = (await t.http.get(`/api/v1/webhook-endpoints/${endpoint.id}/deliveries`).set(brand.headers)).body.data;
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, last_response_status: 200, last_error: null });
    expect((await t.http.get(`/api/v1/webhook-endpoints/${endpoint.id}`).set(brand.headers)).body.data.consecutive_failures).toBe(0);
  });

  it('replays a delivery as a new delivery of the same event id', async () => {
    const { brand, advocate } = await premierBrandWithAdvocate();
    const hook = await receiver();
    const endpoint = await endpointFor(brand, hook.url, { events: ['conversion.created'] });
    await conversion(brand, { email: 'z@example.com', order_id: uniqueOrderId(), order_value: 10, referral_code: advocate.code });
    await deliver(brand);
    const [first] = (await t.http.get(`/api/v1/webhook-endpoints/${endpoint.id}/deliveries`).set(brand.headers)).body.data;

    const replay = await t.http.post(`/api/v1/webhook-deliveries/${first.id}/replay`).set(brand.headers);
    expect(replay.status).toBe(201);
    expect(replay.body.data).toMatchObject({ status: 'pending', attempts: 0, event_id: first.event_id, replay_of: first.id, endpoint_id: endpoint.id });
    await deliver(brand);
    const events = verified(hook.received, endpoint.secret);
    expect(events.map((event) => event.id)).toEqual([first.event_id, first.event_id]);
    expect(hook.received[1]!.body).toBe(hook.received[0]!.body);
  });

  it('sends a test event now with POST /test, once, and answers how it went', async () => {
    const brand = await givenBrand(t.db);
    const hook = await receiver();
    const endpoint = await endpointFor(brand, hook.url, { events: ['claim.created'] });
    const tested = await t.http.post(`/api/v1/webhook-endpoints/${endpoint.id}/test`).set(brand.headers);
    expect(tested.status).toBe(200);
    expect(tested.body.data).toMatchObject({ status: 'delivered', attempts: 1, event_type: 'webhook.test', last_response_status: 200 });
    expect(verified(hook.received, endpoint.secret)[0]).toMatchObject({ type: 'webhook.test', data: { endpoint_id: endpoint.id } });

    hook.answer = () => ({ status: 500 });
    const failing = await t.http.post(`/api/v1/webhook-endpoints/${endpoint.id}/test`).set(brand.headers);
    expect(failing.body.data).toMatchObject({ status: 'failed', attempts: 1, last_response_status: 500 });
    expect((await t.http.get(`/api/v1/webhook-endpoints/${endpoint.id}`).set(brand.headers)).body.data.consecutive_failures).toBe(0);
  });
});

describe('outbound webhooks: where they may go, and who may see them', () => {
  it('refuses a private or loopback literal address with 400 naming url unless WEBHOOK_ALLOW_PRIVATE is true', async () => {
    const strict = await startTestApp({ webhooks: { ...SETTINGS, allowPrivate: false } }, postgres.db);
    const brand = await givenBrand(t.db);
    for (const url of ['http://127.0.0.1:9/hook', 'http://10.1.2.3/hook', 'http://169.254.169.254/latest', 'http://[::1]/hook', 'http://[::ffff:127.0.0.1]/hook', 'http://[fe80::1]/x', 'http://0.0.0.0/', 'http://224.0.0.1/']) {
      const refused = await strict.http.post('/api/v1/webhook-endpoints').set(brand.headers).send({ url });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatch(/^url points at a private, loopback or reserved address/);
    }
    expect((await strict.http.post('/api/v1/webhook-endpoints').set(brand.headers).send({ url: 'https://93.184.215.14/hook' })).status).toBe(201);
    expect((await t.http.post('/api/v1/webhook-endpoints').set(brand.headers).send({ url: 'http://127.0.0.1:9/hook' })).status).toBe(201);
  });

  it('refuses at delivery time a host name that resolves to a private address', async () => {
    const { brand, advocate } = await premierBrandWithAdvocate();
    const hook = await receiver();
    const strictSettings = { ...SETTINGS, allowPrivate: false };
    const strict = await startTestApp({ webhooks: strictSettings }, postgres.db);
    const viaName = hook.url.replace('127.0.0.1', 'localhost');
    const added = await strict.http.post('/api/v1/webhook-endpoints').set(brand.headers).send({ url: viaName, events: ['conversion.created'] });
    expect(added.status).toBe(201);
    await conversion(brand, { email: 'l@example.com', order_id: uniqueOrderId(), order_value: 10, referral_code: advocate.code });
    await deliverDueWebhooks({ db: t.db, encryptionSecret: TEST_SECRET, settings: strictSettings }, brand.brandId);
    expect(hook.received).toHaveLength(0);
    const [delivery] = (await t.http.get(`/api/v1/webhook-endpoints/${added.body.data.id}/deliveries`).set(brand.headers)).body.data;
    expect(delivery.status).toBe('pending');
    expect(delivery.last_error).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a private, loopback or reserved address/);
  });

  it.each([
    [{ url: 'ftp://example.com/hook' }, 'url must use http or https, not ftp'],
    [{ url: 'javascript:alert(1)' }, 'url must use http or https, not javascript'],
    [{ url: 'not a url' }, 'url must be an absolute http or https URL (got "not a url")'],
    [{ url: 'https://user:pass@example.com/' }, 'url must not contain a user name or password'],
    [{}, 'url is required'],
    [{ url: 'https://example.com/', events: ['order.created'] }, 'events.0: must be one of claim.created, conversion.created, conversion.refunded, reward.credited, reward.reversed, reward.issued'],
    [{ url: 'https://example.com/', events: [] }, 'events: must name at least one event type (omit it for all)'],
    [{ url: 'https://example.com/', events: 'claim.created' }, 'events must be an array, not a string'],
  ])('answers %j with 400: %s', async (body, message) => {
    const brand = await givenBrand(t.db);
    const response = await t.http.post('/api/v1/webhook-endpoints').set(brand.headers).send(body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, error: message, code: 'invalid_request' });
    expect(await t.db('webhook_endpoints').where({ brand_id: brand.brandId })).toHaveLength(0);
  });

  it("answers 404 for another brand's endpoint or delivery, and changes nothing", async () => {
    const { brand: owner, advocate } = await premierBrandWithAdvocate();
    const other = await givenBrand(t.db);
    const hook = await receiver();
    const endpoint = await endpointFor(owner, hook.url);
    await conversion(owner, { email: 'o@example.com', order_id: uniqueOrderId(), order_value: 10, referral_code: advocate.code });
    const [delivery] = await t.db('webhook_deliveries').where({ brand_id: owner.brandId }).pluck('delivery_id');
    const attempts = [
      t.http.get(`/api/v1/webhook-endpoints/${endpoint.id}`).set(other.headers),
      t.http.delete(`/api/v1/webhook-endpoints/${endpoint.id}`).set(other.headers),
      t.http.post(`/api/v1/webhook-endpoints/${endpoint.id}/test`).set(other.headers),
      t.http.post(`/api/v1/webhook-endpoints/${endpoint.id}/enable`).set(other.headers),
      t.http.get(`/api/v1/webhook-endpoints/${endpoint.id}/deliveries`).set(other.headers),
      t.http.post(`/api/v1/webhook-deliveries/${delivery}/replay`).set(other.headers),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
    expect((await t.http.get('/api/v1/webhook-endpoints').set(other.headers)).body.data).toEqual([]);
    expect(hook.received).toHaveLength(0);
    expect(await t.db('webhook_deliveries').where({ brand_id: owner.brandId })).toHaveLength(2);
  });

  it('shows the signing secret once and stores it only encrypted', async () => {
    const brand = await givenBrand(t.db);
    const created = await endpointFor(brand, 'https://hooks.example.com/referrals');
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const listed = await t.http.get('/api/v1/webhook-endpoints').set(brand.headers);
    const shown = await t.http.get(`/api/v1/webhook-endpoints/${created.id}`).set(brand.headers);
    expect(JSON.stringify(listed.body)).not.toContain(created.secret.slice(6));
    expect(shown.body.data).not.toHaveProperty('secret');
    const row = await t.db('webhook_endpoints').where({ brand_id: brand.brandId, endpoint_id: created.id }).first();
    expect(JSON.stringify(row)).not.toContain(created.secret.slice(6));
    expect(decryptSecret(row.secret_encrypted, TEST_SECRET)).toBe(created.secret);
  });

  it('removes an endpoint with DELETE: it is gone from the list and hears nothing more', async () => {
    const { brand, advocate } = await premierBrandWithAdvocate();
    const hook = await receiver();
    const endpoint = await endpointFor(brand, hook.url);
    const removed = await t.http.delete(`/api/v1/webhook-endpoints/${endpoint.id}`).set(brand.headers);
    expect(removed.body).toEqual({ success: true, data: { id: endpoint.id, removed: true } });
    await conversion(brand, { email: 'gone@example.com', order_id: uniqueOrderId(), order_value: 10, referral_code: advocate.code });
    await deliver(brand);
    expect(hook.received).toHaveLength(0);
    expect((await t.http.get('/api/v1/webhook-endpoints').set(brand.headers)).body.data).toEqual([]);
    expect((await t.http.get(`/api/v1/webhook-endpoints/${endpoint.id}`).set(brand.headers)).status).toBe(404);
  });
});

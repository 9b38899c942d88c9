import type { Knex } from 'knex';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { createDatabase } from '../../core/db/create-database';
import { startWebhookWorker } from '../../server/webhooks/deliver-webhooks';
import type { WebhookSettings } from '../../server/webhooks/webhook-settings';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type RealPostgres, realPostgres } from '../helpers/real-postgres';
import { TEST_SECRET, startTestApp } from '../helpers/test-app';
import { startReceiver } from './receiver';

// Always on a real PostgreSQL: two server processes, each with its own pool, share the deliveries.
// A generous attempt timeout: on a loaded machine a 2 s one can expire after the receiver got the
// request, and the retry (at-least-once, by design) would look like a double delivery here.
const SETTINGS: WebhookSettings = { allowPrivate: true, timeoutMs: 10_000, workerIntervalMs: 10, retryScale: 0.001, disableAfterFailures: 50, disableAfterDays: 5 };

let postgres: RealPostgres;
let secondPool: Knex;
beforeAll(async () => {
  // Its workers sweep every brand's deliveries: on the shared database they would take other files'.
  postgres = await realPostgres({ ownDatabase: true });
  secondPool = createDatabase({ databaseUrl: (postgres.db.client.config as { connection: string }).connection });
});
afterAll(async () => {
  await secondPool.destroy();
  await postgres.close();
});

describe('the webhook delivery worker in two server processes', () => {
  it('delivers each of 40 deliveries exactly once between them', async () => {
    const first = await startTestApp({ webhooks: SETTINGS }, postgres.db);
    const second = await startTestApp({ webhooks: SETTINGS }, secondPool);
    const brand = await givenBrand(postgres.db, { reward_value: 0 });
    const advocate = await givenAdvocate(postgres.db, brand.brandId);
    const receiver = await startReceiver();
    // A slow receiver keeps several deliveries in flight in both workers at once.
    receiver.answer = () => ({ status: 200, delayMs: 20 });
    const created = await first.http.post('/api/v1/webhook-endpoints').set(brand.headers).send({ url: receiver.url, events: ['conversion.created'] });
    expect(created.status).toBe(201);
    const orders = Array.from({ length: 40 }, () => uniqueOrderId());
    const responses = await Promise.all(
      orders.map((order_id, index) => [first, second][index % 2]!.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: `w${index}@example.com`, order_id, order_value: 10, referral_code: advocate.code })),
    );
    expect(responses.every((response) => response.status === 201)).toBe(true);

    const logger = pino({ level: 'silent' });
    const workers = [postgres.db, secondPool].map((db) => startWebhookWorker({ db, encryptionSecret: TEST_SECRET, settings: SETTINGS, logger }));
    const deadline = Date.now() + 20_000;
    while (receiver.received.length < 40 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    await new Promise((resolve) => setTimeout(resolve, 300)); // room for a second, wrongful delivery to show up
    await Promise.all(workers.map((worker) => worker.stop()));
    await receiver.close();

    const webhook = new Webhook(created.body.data.secret);
    const orderIds = receiver.received.map((request) => (webhook.verify(request.body, request.headers) as { data: { order_id: string } }).data.order_id);
    expect(orderIds).toHaveLength(40);
    expect(orderIds.sort()).toEqual([...orders].sort());
    const statuses = await postgres.db('webhook_deliveries').where({ brand_id: brand.brandId }).select('status', 'attempts');
    expect(statuses).toHaveLength(40);
    expect(statuses.every((row) => row.status === 'delivered' && row.attempts === 1)).toBe(true);
  });
});

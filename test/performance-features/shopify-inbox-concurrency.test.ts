import { processInbox } from '../../connectors/shopify/process-inbox';
import { updateBrand } from '../../core/brands/brand';
import { createDatabase } from '../../core/db/create-database';
import type { Knex } from 'knex';
import { givenAdvocate } from '../helpers/fixtures';
import { type RealPostgres, realPostgres } from '../helpers/real-postgres';
import { type TestApp, startTestApp } from '../helpers/test-app';
import { postgresUrlOf } from './postgres-url';
import { exactNumber, fixtureText, installApp, sendWebhook, useFakeShopify, useShopifyEnv, variant } from '../shopify/shopify-test-kit';

useShopifyEnv();
const fake = useFakeShopify();
const ORDER_WITH_TENOFF = fixtureText('order-with-discount-code.shopify-api-fixture.json');
const REFUND_SAMPLE = fixtureText('refunds-create.webhook-sample.json');

const ORDERS = 40;
const WORKERS = 3;

let postgres: RealPostgres;
let app: TestApp;
const workerPools: Knex[] = [];
beforeAll(async () => {
  // A database of its own: no other file's server (with its own inbox worker) sweeps these deliveries.
  postgres = await realPostgres({ ownDatabase: true });
  app = await startTestApp({}, postgres.db);
  // Three workers as three processes would be: each its own connection pool.
  for (let i = 0; i < WORKERS; i += 1) workerPools.push(createDatabase({ databaseUrl: postgresUrlOf(postgres.db) }));
}, 30_000);
afterAll(async () => {
  await Promise.all(workerPools.map((pool) => pool.destroy()));
  await postgres?.close();
});

const paidOrder = (orderId: string, n: number) =>
  variant(ORDER_WITH_TENOFF, (order) => {
    order.id = exactNumber(orderId);
    order.email = order.contact_email = order.customer.email = `buyer${n}-${orderId}@example.com`;
  });

const refundOf = (orderId: string, refundId: string) =>
  variant(REFUND_SAMPLE, (refund) => {
    refund.id = exactNumber(refundId);
    refund.order_id = exactNumber(orderId);
    refund.transactions = [{ id: Number(refundId.slice(-7)), kind: 'refund', status: 'success', amount: '10.00', currency: 'USD', gateway: 'bogus' }];
  });

/** One worker: passes until a pass finds nothing due. */
async function drain(db: Knex, brandId: string): Promise<void> {
  for (;;) {
    const { done, retrying, failed } = await processInbox(db, { brandId });
    if (done + retrying + failed === 0) return;
  }
}

describe('Shopify inbox drained by several workers at once', () => {
  it(`records a burst of ${ORDERS} paid orders and their refunds, interleaved, exactly once each, every refund after its order, with ${WORKERS} workers`, async () => {
    const shop = await installApp(app, fake, undefined, 'premier');
    // A burst for one advocate: velocity off, or the fraud rules would hold its rewards for review.
    await updateBrand(app.db, shop.brandId, { reward_type: 'fixed', reward_value: 10, reward_hold_days: 0, fraud_velocity: false });
    await givenAdvocate(app.db, shop.brandId, { code: 'TENOFF' });
    const orderIds = Array.from({ length: ORDERS }, (_, i) => `${7_100_000_000_000 + i}`);
    // paid 0, refund 0, paid 1, refund 1, …: each refund right behind its order, where a free worker meets it first.
    for (const [i, orderId] of orderIds.entries()) {
      expect((await sendWebhook(app, paidOrder(orderId, i), { topic: 'orders/paid', shop: shop.shop })).status).toBe(200);
      expect((await sendWebhook(app, refundOf(orderId, `${9_100_000_000_000 + i}`), { topic: 'refunds/create', shop: shop.shop })).status).toBe(200);
    }

    await Promise.all(workerPools.map((pool) => drain(pool, shop.brandId)));

    const inbox = await app.db('shopify_inbox').where({ brand_id: shop.brandId }).select('topic', 'order_id', 'status', 'attempts', 'outcome', 'processed_at');
    expect(inbox).toHaveLength(2 * ORDERS);
    // Each processed once, and no refund ever met a missing order (it would have been retried: attempts 2).
    expect(inbox.filter((row) => row.status === 'done' && row.attempts === 1)).toHaveLength(2 * ORDERS);
    expect(inbox.filter((row) => row.topic === 'refunds/create' && row.outcome === 'refund_recorded')).toHaveLength(ORDERS);
    for (const orderId of orderIds) {
      const paid = inbox.find((row) => row.order_id === orderId && row.topic === 'orders/paid')!;
      const refund = inbox.find((row) => row.order_id === orderId && row.topic === 'refunds/create')!;
      expect(new Date(refund.processed_at).getTime()).toBeGreaterThanOrEqual(new Date(paid.processed_at).getTime());
    }
    const conversions = await app.db('conversions').where({ brand_id: shop.brandId }).select('status', 'refunded_total');
    expect(conversions).toHaveLength(ORDERS);
    expect(conversions.every((conversion) => conversion.status === 'partial_refund' && conversion.refunded_total === '10.00')).toBe(true);
    const credits = await app.db('reward_ledger').where({ brand_id: shop.brandId, kind: 'credit' }).count({ count: '*' }).first();
    expect(Number(credits!.count)).toBe(ORDERS);
  }, 60_000);
});

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MedusaContainer } from '@medusajs/framework/types';
import { POST as retryRoute } from '../../connectors/medusa/plugin/src/api/admin/referral-deliveries/[id]/retry/route';
import sendPendingReferralDeliveries from '../../connectors/medusa/plugin/src/jobs/send-pending-referral-deliveries';
import { retryDelivery } from '../../connectors/medusa/plugin/src/lib/retry-delivery';
import * as orderPlaced from '../../connectors/medusa/plugin/src/subscribers/order-placed';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';
import { FakeMedusaContainer, recordingResponse } from './fake-medusa-container';
import { InMemoryDeliveryStore } from './in-memory-delivery-store';
import type { OrderState } from './order-graphs';

const OPTIONS = { serviceUrl: 'https://referrals.example.com', brandId: '3f1e6c1a-1111-4222-8333-944455556666', apiKey: 'rk_x' };

/** A store holding one delivery in each state: rejected, pending after two failed attempts, delivered. */
async function givenDeliveries() {
  const store = new InMemoryDeliveryStore(OPTIONS);
  const record = () => store.recordDelivery({ brand_id: OPTIONS.brandId, event_name: 'payment.captured', order_id: `order_${uniqueOrderId()}`, body: '{}' });
  const settledAt = new Date('2026-11-20T10:00:00Z');
  const rejected = await record();
  await store.settleDelivery(rejected.id, { status: 'rejected', attempts: 1, next_attempt_at: settledAt, last_error: 'referral service refused an order snapshot (422): exchange_rate_required', settled_at: settledAt });
  const backingOff = await record();
  await store.settleDelivery(backingOff.id, { status: 'pending', attempts: 2, next_attempt_at: new Date(Date.now() + 600_000), last_error: 'referral service unreachable', settled_at: null });
  const delivered = await record();
  await store.settleDelivery(delivered.id, { status: 'delivered', attempts: 1, next_attempt_at: settledAt, last_error: null, settled_at: settledAt });
  return { store, rejected: rejected.id, backingOff: backingOff.id, delivered: delivered.id };
}

/** The route as Medusa calls it: `req.params` from the [id] folder, `req.scope` the request's container. */
async function callRetryRoute(container: MedusaContainer, id: string): Promise<{ status: number; body: any }> {
  const { res, sent } = recordingResponse();
  await retryRoute({ params: { id }, scope: container } as never, res);
  return sent;
}

describe('retryDelivery (lib/retry-delivery.ts)', () => {
  it('puts a rejected delivery back to pending, due now, attempts reset, keeping its last error until the next attempt', async () => {
    const { store, rejected } = await givenDeliveries();
    const now = new Date('2026-11-21T09:00:00Z');
    const result = await retryDelivery(store, rejected, now);
    const expected = { id: rejected, status: 'pending', attempts: 0, next_attempt_at: now, settled_at: null, last_error: expect.stringMatching(/422/) };
    expect(result).toEqual({ outcome: 'requeued', delivery: expect.objectContaining(expected) });
    expect(store.rows.find((row) => row.id === rejected)).toMatchObject(expected);
    expect(await store.claimDueDeliveries(new Date('2026-11-21T09:00:01Z'), 10)).toEqual([expect.objectContaining({ id: rejected, attempts: 0 })]);
  });

  it('makes a pending delivery that is backing off due now, its attempts reset', async () => {
    const { store, backingOff } = await givenDeliveries();
    const now = new Date();
    expect(await retryDelivery(store, backingOff, now)).toMatchObject({ outcome: 'requeued', delivery: { status: 'pending', attempts: 0, next_attempt_at: now } });
  });

  it('leaves a delivered one alone, and knows no unknown id', async () => {
    const { store, delivered } = await givenDeliveries();
    const before = { ...store.rows.find((row) => row.id === delivered) };
    expect(await retryDelivery(store, delivered)).toMatchObject({ outcome: 'already_delivered', delivery: { id: delivered, status: 'delivered' } });
    expect(store.rows.find((row) => row.id === delivered)).toEqual(before);
    expect(await retryDelivery(store, 'refdel_unknown')).toEqual({ outcome: 'not_found' });
  });
});

describe('POST /admin/referral-deliveries/:id/retry', () => {
  it('answers 200 with the delivery back to pending, 404 for an unknown id, 409 for one already delivered', async () => {
    const medusa = new FakeMedusaContainer(OPTIONS);
    const { store, rejected, delivered } = await givenDeliveries();
    medusa.deliveries.rows.push(...store.rows);

    const retried = await callRetryRoute(medusa.container, rejected);
    expect(retried.status).toBe(200);
    expect(retried.body.referral_delivery).toMatchObject({ id: rejected, status: 'pending', attempts: 0, settled_at: null, event_name: 'payment.captured' });
    expect(retried.body.referral_delivery).not.toHaveProperty('body');

    expect(await callRetryRoute(medusa.container, 'refdel_01UNKNOWN')).toEqual({ status: 404, body: { type: 'not_found', message: 'referral delivery refdel_01UNKNOWN not found' } });
    const conflict = await callRetryRoute(medusa.container, delivered);
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ type: 'conflict', message: expect.stringMatching(/already delivered/), referral_delivery: { status: 'delivered' } });
  });

  describe('against the service', () => {
    let service: TestApp;
    let server: http.Server;
    let serviceUrl: string;

    beforeAll(async () => {
      service = await startTestApp();
      server = http.createServer(service.app.callback());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      serviceUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('replays a delivery the service refused (a revoked key) once Medusa runs with a valid key: the order is credited', async () => {
      const brand = await givenBrand(service.db, { plan: 'premier', reward_type: 'percentage', reward_value: 10, reward_hold_days: 0, currency: 'EUR' });
      const advocate = await givenAdvocate(service.db, brand.brandId);
      const order: OrderState = { id: `order_${uniqueOrderId()}`, email: `buyer-${uniqueOrderId()}@example.com`, promotions: [{ code: advocate.code, discount: 7 }], paid: 'all' };
      const wrongKey = new FakeMedusaContainer({ serviceUrl, brandId: brand.brandId, apiKey: 'rk_revoked-key' });
      wrongKey.save(order);
      await orderPlaced.default({ event: { name: 'order.placed', data: { id: order.id } }, container: wrongKey.container, pluginOptions: {} });
      const [row] = wrongKey.deliveries.rows;
      expect(row).toMatchObject({ status: 'rejected', attempts: 1, last_error: expect.stringMatching(/\(401\)/) });

      // The merchant sets a valid key and restarts Medusa (same database), then retries the delivery.
      const fixed = new FakeMedusaContainer({ serviceUrl, brandId: brand.brandId, apiKey: brand.apiKey });
      fixed.deliveries.rows.push(row!);
      await sendPendingReferralDeliveries(fixed.container);
      expect(row).toMatchObject({ status: 'rejected' }); // a rejected delivery is not sent by itself

      expect((await callRetryRoute(fixed.container, row!.id)).status).toBe(200);
      await sendPendingReferralDeliveries(fixed.container);
      expect(row).toMatchObject({ status: 'delivered', attempts: 1, last_error: null });
      expect(await service.db('conversions').where({ brand_id: brand.brandId, order_id: order.id }).first()).toMatchObject({ status: 'completed', order_value: '63.00', referrer_reward_paid: '6.30' });

      expect((await callRetryRoute(fixed.container, row!.id)).status).toBe(409);
    });
  });
});

import { closeServer, listen, useListeningService } from '../helpers/listen';
import sendPendingReferralDeliveries from '../../connectors/medusa/plugin/src/jobs/send-pending-referral-deliveries';
import validateOptions from '../../connectors/medusa/plugin/src/modules/referrals/loaders/validate-options';
import * as orderCanceled from '../../connectors/medusa/plugin/src/subscribers/order-canceled';
import * as orderPlaced from '../../connectors/medusa/plugin/src/subscribers/order-placed';
import * as paymentCaptured from '../../connectors/medusa/plugin/src/subscribers/payment-captured';
import * as paymentRefunded from '../../connectors/medusa/plugin/src/subscribers/payment-refunded';
import { rewardBalance } from '../../core/ledger/reward-ledger';
import type { App } from '../../server/app';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { freePort } from '../helpers/free-port';
import type { TestApp } from '../helpers/test-app';
import { FakeMedusaContainer, type SubscriberModule } from './fake-medusa-container';
import type { OrderState } from './order-graphs';

let service: TestApp;
let serviceUrl: string;
useListeningService((listening) => ({ service, serviceUrl } = listening));

/**
 * A Medusa store with the plugin installed (10 % advocate reward), an advocate, and an order
 * whose referral code took 7.00 off: 63.00 to pay.
 */
async function givenStore(options: { plan?: 'premier' | 'growth'; pluginOptions?: Record<string, unknown> } = {}) {
  const db = service.db;
  const brand = await givenBrand(db, { plan: options.plan ?? 'premier', reward_type: 'percentage', reward_value: 10, reward_hold_days: 0, currency: 'EUR' }); // the orders' currency
  const advocate = await givenAdvocate(db, brand.brandId);
  const pluginOptions = { serviceUrl, brandId: brand.brandId, apiKey: brand.apiKey, retryBaseDelayMs: 20, retryMaxDelayMs: 200, ...options.pluginOptions };
  const medusa = new FakeMedusaContainer(pluginOptions);
  const order: OrderState = {
    id: `order_${uniqueOrderId()}`,
    email: `buyer-${uniqueOrderId()}@example.com`,
    promotions: [{ code: advocate.code, discount: 7 }],
  };

  const emit = (subscriber: SubscriberModule) => medusa.emit(subscriber, order);
  const conversion = () => db('conversions').where({ brand_id: brand.brandId, order_id: order.id }).first();
  const claims = () => db('claims').where({ brand_id: brand.brandId });
  const refunds = () => db('refunds').where({ brand_id: brand.brandId }).orderBy('refund_pk');
  const balance = async () => (await rewardBalance(db, brand.brandId, advocate.advocateId)).balance;
  return { brand, advocate, medusa, order, emit, conversion, claims, refunds, balance };
}

describe('Medusa plugin subscribers, delivering to the service', () => {
  it('records nothing when an order is placed unpaid, then the conversion and its claim once the payment is captured', async () => {
    const store = await givenStore();
    await store.emit(orderPlaced);
    expect(await store.conversion()).toBeUndefined();

    store.order.paid = 'all';
    await store.emit(paymentCaptured);
    const conversion = await store.conversion();
    expect(conversion).toMatchObject({ status: 'completed', order_value: '63.00', referrer_reward_paid: '6.30', source: 'medusa', currency: 'EUR' });
    expect(conversion.order_subtotal).toBe('58.00');
    const [claim] = await store.claims();
    expect(claim).toMatchObject({ status: 'converted', source: 'medusa', referral_code: store.advocate.code });
    expect(Number(conversion.claim_id)).toBe(Number(claim.claim_id));
    expect(await store.balance()).toBe(6.3);

    const lines = await service.db('conversion_products').where({ brand_id: store.brand.brandId, conversion_id: conversion.conversion_id }).orderBy('line_no');
    expect(lines.map((line) => [line.name, line.sku, line.quantity, line.price, line.line_total])).toEqual([
      ['Black tee', 'TEE-BLK-M', 2, '25.00', '43.00'],
      ['Mug', 'MUG-01', 1, '15.00', '15.00'],
    ]);
    expect(lines[0].attributes).toMatchObject({ categories: ['Shirts'] });
  });

  it('converts on order.placed when the provider captured during checkout (Medusa emits no payment.captured then)', async () => {
    const store = await givenStore();
    store.order.paid = 'all';
    await store.emit(orderPlaced);
    expect(await store.conversion()).toMatchObject({ status: 'completed', order_value: '63.00' });
    expect(await store.balance()).toBe(6.3);
  });

  it('records a partial refund by its Medusa refund id and reverses the reward pro rata', async () => {
    const store = await givenStore();
    store.order.paid = 'all';
    await store.emit(orderPlaced);
    store.order.refunds = [{ id: 'ref_01PARTIAL', amount: 21, created_at: '2026-11-21T10:00:00Z', note: 'damaged mug' }];
    await store.emit(paymentRefunded);

    expect(await store.conversion()).toMatchObject({ status: 'partial_refund', refunded_total: '21.00' });
    expect(await store.refunds()).toEqual([expect.objectContaining({ refund_id: 'ref_01PARTIAL', amount: '21.00', is_full_refund: false, reason: 'damaged mug' })]);
    expect((await store.claims())[0]).toMatchObject({ status: 'partial_refund' });
    expect(await store.balance()).toBe(4.2);
  });

  it('records two refunds once each; the one reaching paid_total makes the order refunded', async () => {
    const store = await givenStore();
    store.order.paid = 'all';
    await store.emit(orderPlaced);
    store.order.refunds = [{ id: 'ref_01FIRST', amount: 21, created_at: '2026-11-21T10:00:00Z' }];
    await store.emit(paymentRefunded);
    store.order.refunds.push({ id: 'ref_02SECOND', amount: 42, created_at: '2026-11-22T10:00:00Z' });
    await store.emit(paymentRefunded);
    await store.emit(paymentRefunded); // Medusa state read again: both refunds are already recorded

    expect(await store.conversion()).toMatchObject({ status: 'refunded', refunded_total: '63.00' });
    expect((await store.refunds()).map((refund) => [refund.refund_id, refund.amount, refund.is_full_refund])).toEqual([
      ['ref_01FIRST', '21.00', false],
      ['ref_02SECOND', '42.00', true],
    ]);
    expect(await store.balance()).toBe(0);
  });

  it('refunds what was paid in full when a captured order is canceled (no payment.refunded is emitted)', async () => {
    const store = await givenStore();
    store.order.paid = 'all';
    await store.emit(orderPlaced);
    store.order.canceled = true;
    await store.emit(orderCanceled);
    await store.emit(orderCanceled);

    expect(await store.conversion()).toMatchObject({ status: 'refunded', refunded_total: '63.00' });
    expect(await store.refunds()).toEqual([
      expect.objectContaining({ refund_id: `cancel:${store.order.id}`, amount: '63.00', is_full_refund: true }),
    ]);
    expect((await store.claims())[0]).toMatchObject({ status: 'refunded' });
    expect(await store.balance()).toBe(0);
  });

  it('does not refund twice when the cancellation refunded the payment in Medusa itself', async () => {
    const store = await givenStore();
    store.order.paid = 'all';
    await store.emit(orderPlaced);
    store.order.canceled = true;
    store.order.refunds = [{ id: 'ref_01CANCEL', amount: 63, created_at: '2026-11-21T10:00:00Z' }];
    await store.emit(orderCanceled);

    expect(await store.conversion()).toMatchObject({ status: 'refunded', refunded_total: '63.00' });
    expect((await store.refunds()).map((refund) => refund.refund_id)).toEqual(['ref_01CANCEL']);
  });

  it('never takes an automatic promotion for a referral code, even one spelled like it', async () => {
    const store = await givenStore();
    store.order.promotions = [{ code: store.advocate.code, discount: 7, automatic: true }];
    store.order.paid = 'all';
    await store.emit(orderPlaced);

    expect(await store.conversion()).toBeUndefined();
    expect(await store.claims()).toHaveLength(0);
  });

  it('records nothing for a coupon that is not a referral code, and its refunds are no error', async () => {
    const store = await givenStore();
    store.order.promotions = [{ code: 'BLACKFRIDAY', discount: 7 }];
    store.order.paid = 'all';
    await store.emit(orderPlaced);
    store.order.refunds = [{ id: 'ref_01NOREF', amount: 10, created_at: '2026-11-21T10:00:00Z' }];
    await store.emit(paymentRefunded);

    expect(await store.conversion()).toBeUndefined();
    expect(await store.refunds()).toHaveLength(0);
    expect(store.medusa.logs.filter((log) => log.level === 'error')).toEqual([]);
  });

  it('records the conversion without a claim below the Premier plan', async () => {
    const store = await givenStore({ plan: 'growth' });
    store.order.paid = 'all';
    await store.emit(orderPlaced);
    expect(await store.conversion()).toMatchObject({ status: 'completed', claim_id: null, referral_code: store.advocate.code });
    expect(await store.claims()).toHaveLength(0);
  });

  it('converts when the order is placed under conversionTrigger "placed", and a cancellation takes it back', async () => {
    const store = await givenStore({ pluginOptions: { conversionTrigger: 'placed' } });
    await store.emit(orderPlaced);
    expect(await store.conversion()).toMatchObject({ status: 'completed', order_value: '63.00' });
    store.order.canceled = true;
    await store.emit(orderCanceled);
    expect(await store.conversion()).toMatchObject({ status: 'refunded' });
    expect(await store.balance()).toBe(0);
  });

  it('records the delivery while the service is down, and the scheduled job sends it with backoff once it is back', async () => {
    const port = await freePort(); // outside the ephemeral range: nothing else takes it while the service is down
    const store = await givenStore({ pluginOptions: { serviceUrl: `http://127.0.0.1:${port}`, retryBaseDelayMs: 50, retryMaxDelayMs: 200 } });
    store.order.paid = 'all';
    // The attempt happens between these two clock readings; bracketing it keeps the check true on a loaded machine.
    const beforeFirst = Date.now();
    await store.emit(orderPlaced);
    const afterFirst = Date.now();

    expect(await store.conversion()).toBeUndefined();
    const [row] = store.medusa.deliveries.rows;
    expect(row).toMatchObject({ status: 'pending', attempts: 1, event_name: 'order.placed', order_id: store.order.id, last_error: expect.stringMatching(/unreachable/) });
    // Backoff: the first retry is due 25–50 ms after the failed attempt, not at once.
    expect(row!.next_attempt_at.getTime()).toBeGreaterThanOrEqual(beforeFirst + 25);
    expect(row!.next_attempt_at.getTime()).toBeLessThanOrEqual(afterFirst + 50);

    await new Promise((resolve) => setTimeout(resolve, 60));
    const beforeSecond = Date.now();
    await sendPendingReferralDeliveries(store.medusa.container);
    const afterSecond = Date.now();
    expect(row).toMatchObject({ status: 'pending', attempts: 2 });
    // The second retry waits twice as long: 50–100 ms.
    expect(row!.next_attempt_at.getTime()).toBeGreaterThanOrEqual(beforeSecond + 50);
    expect(row!.next_attempt_at.getTime()).toBeLessThanOrEqual(afterSecond + 100);

    const back = await listen(service.app, port);
    try {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, row!.next_attempt_at.getTime() - Date.now()) + 5));
      await sendPendingReferralDeliveries(store.medusa.container);
    } finally {
      await closeServer(back);
    }
    expect(row).toMatchObject({ status: 'delivered', attempts: 3, last_error: null });
    expect(await store.conversion()).toMatchObject({ status: 'completed', order_value: '63.00' });
    expect(await store.balance()).toBe(6.3);
  });

  it('gives up at once, marking the delivery rejected with the answer, when the service refuses the signature', async () => {
    const store = await givenStore({ pluginOptions: { apiKey: 'rk_not-the-brands-key' } });
    store.order.paid = 'all';
    await store.emit(orderPlaced);
    await sendPendingReferralDeliveries(store.medusa.container);

    expect(await store.conversion()).toBeUndefined();
    expect(store.medusa.deliveries.rows).toEqual([expect.objectContaining({ status: 'rejected', attempts: 1, last_error: expect.stringMatching(/\(401\).*X-AL-Signature/) })]);
    expect(store.medusa.logs).toContainEqual({ level: 'error', message: expect.stringMatching(/refused .*\(401\).*X-AL-Signature/) });
  });

  it('refuses to start without an option, naming it (the module loader runs at Medusa start-up)', async () => {
    await expect(validateOptions({ options: { serviceUrl, apiKey: 'rk_x' } } as never)).rejects.toThrow('referral plugin option brandId is required');
    await expect(validateOptions({ options: { brandId: '3f1e6c1a-1111-4222-8333-944455556666', apiKey: 'rk_x' } } as never)).rejects.toThrow(
      'referral plugin option serviceUrl is required',
    );
  });

  it('reads the order with query.graph, and finds it from the payment on payment events', async () => {
    const store = await givenStore();
    store.order.paid = 'all';
    await store.emit(paymentCaptured);
    // Then the store's currencies, compared with the brand's before the snapshot is sent (currency-check.ts).
    expect(store.medusa.queries.map((query) => query.entity)).toEqual(['payment', 'order_payment_collection', 'order', 'store']);
    expect(store.medusa.queries[2]).toMatchObject({ filters: { id: store.order.id } });
    expect(store.medusa.queries[2]!.fields).toEqual(
      expect.arrayContaining(['email', 'summary.paid_total', 'summary.refunded_total', 'items.variant_sku', 'items.product.categories.name', 'promotions.is_automatic', 'payment_collections.payments.refunds.id']),
    );
  });
});

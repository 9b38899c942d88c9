import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { rewardBalance } from '../../core/ledger/reward-ledger';
import { givenBrand } from '../helpers/fixtures';
import { type RealPostgres, realPostgres } from '../helpers/real-postgres';
import { type TestApp, startTestApp } from '../helpers/test-app';
import { type MedusaApp, createMedusaApp } from './medusa-app';
import type { PlacedOrder } from './medusa-store-api';

/**
 * A real Medusa 2.21.2 store (test/medusa-app, PostgreSQL) with the plugin installed from its packed
 * tarball and configured as docs/merchants/medusa.md says, driven through Medusa's store and admin APIs, reporting
 * to our service listening on a port. Orders: two tees at 100.00 + 10.00 shipping − the friend's
 * 10.00 off = 200.00; the brand rewards 10 % of the order value, so 20.00. Every referral code is a
 * promotion the plugin provisioned from the service (its promotion sync), none made by hand.
 */

let service: TestApp;
let postgres: RealPostgres;
let listening: http.Server | null = null;
let port = 0;
let brand: Awaited<ReturnType<typeof givenBrand>>;
let medusa: MedusaApp;

function serviceUp(): Promise<void> {
  return new Promise((resolve) => {
    listening = http.createServer(service.app.callback()).listen(port, '127.0.0.1', () => {
      port = (listening!.address() as AddressInfo).port;
      resolve();
    });
  });
}

function serviceDown(): Promise<void> {
  const stopping = listening;
  listening = null;
  return new Promise((resolve) => (stopping ? stopping.close(() => resolve()) : resolve()));
}

/** Polls until `check` stops throwing (deliveries are asynchronous), then returns its value. */
async function eventually<T>(check: () => Promise<T>, timeoutMs = 40_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${(error as Error).message}\n--- Medusa's output ---\n${medusa.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

beforeAll(async () => {
  postgres = await realPostgres();
  service = await startTestApp({}, postgres.db);
  await serviceUp();
  // The store's region sells in EUR. The friend's offer: 10.00 off an order of 150.00 or more, once per customer.
  brand = await givenBrand(service.db, {
    plan: 'premier',
    reward_type: 'percentage',
    reward_value: 10,
    reward_hold_days: 0,
    currency: 'EUR',
    store_url: 'https://shop.example.com',
    referee_discount_type: 'fixed',
    referee_discount_value: 10,
    referee_min_purchase: 150,
    referee_first_purchase_only: true,
  });
  medusa = await createMedusaApp({ serviceUrl: `http://127.0.0.1:${port}`, brandId: brand.brandId, apiKey: brand.apiKey });
  await medusa.start();
  await medusa.api.setUpCatalog();
  // The plugin's first pull of reward codes (its job runs at start-up) links the store, which makes
  // the brand hand rewards out as codes; the merchant switches back to payout, which the tests
  // below expect (balances they read as approved money), and the reward-code test switches on again.
  await eventually(async () => expect(await service.db('medusa_stores').where({ brand_id: brand.brandId })).toHaveLength(1));
  expect((await service.db('brands').where({ brand_id: brand.brandId }).first()).reward_fulfilment).toBe('coupon');
  await setFulfilment('payout');
}, 300_000);

async function setFulfilment(fulfilment: 'payout' | 'coupon'): Promise<void> {
  const changed = await service.http.patch('/api/v1/brand').set({ 'X-API-Key': brand.apiKey, 'X-Brand-ID': brand.brandId }).send({ reward_fulfilment: fulfilment });
  expect([changed.status, changed.body.data?.reward_fulfilment]).toEqual([200, fulfilment]);
}

afterAll(async () => {
  await medusa?.destroy();
  await serviceDown();
  await postgres?.close();
}, 60_000);

let shopper = 0;

/** An advocate enrolled on the service (POST /api/v1/advocates): their id and referral code. */
async function enrolAdvocate(): Promise<{ advocateId: number; code: string }> {
  shopper += 1;
  const created = await service.http.post('/api/v1/advocates').set({ 'X-API-Key': brand.apiKey, 'X-Brand-ID': brand.brandId }).send({ email: `advocate${shopper}-${Date.now()}@example.com`, first_name: 'Ann' });
  expect(created.status).toBe(201);
  return { advocateId: created.body.data.advocate_id, code: created.body.data.referral_codes[0] };
}

/** An advocate whose referral code the plugin provisioned as a Medusa promotion (10.00 off), and an order placed with it. */
async function givenReferralOrder(): Promise<{ order: PlacedOrder; advocateId: number; code: string }> {
  const advocate = await enrolAdvocate();
  await medusa.api.syncReferralPromotions();
  const order = await medusa.api.placeOrder(`shopper${shopper}-${Date.now()}@example.com`, advocate.code);
  return { order, advocateId: advocate.advocateId, code: advocate.code };
}

const conversionOf = (order: PlacedOrder) => service.db('conversions').where({ brand_id: brand.brandId, order_id: order.orderId }).first();
const refundsOf = (order: PlacedOrder) =>
  service
    .db('refunds')
    .where({ brand_id: brand.brandId })
    .whereIn('conversion_id', service.db('conversions').select('conversion_id').where({ brand_id: brand.brandId, order_id: order.orderId }))
    .orderBy('refund_pk');
const refundsOfPayment = (order: PlacedOrder) => service.db('refunds').where({ brand_id: brand.brandId }).whereRaw("metadata->>'medusa_payment_id' = ?", [order.paymentId]);
const balanceOf = async (advocateId: number) => (await rewardBalance(service.db, brand.brandId, advocateId)).balance;
const deliveriesOf = (order: PlacedOrder) => medusa.db('referral_delivery').where({ order_id: order.orderId }).orderBy('created_at');

async function expectConversion(order: PlacedOrder, expected: Record<string, unknown>) {
  return eventually(async () => {
    const conversion = await conversionOf(order);
    expect(conversion).toMatchObject(expected);
    return conversion;
  });
}

/** Every delivery Medusa recorded for the order was accepted by the service. */
async function expectAllDelivered(order: PlacedOrder, count: number) {
  await eventually(async () => {
    expect((await deliveriesOf(order)).map((delivery) => delivery.status)).toEqual(Array(count).fill('delivered'));
  });
}

/**
 * Captures the order while the service is down and waits until Medusa holds the capture's delivery
 * as pending after a failed attempt; `meanwhile` runs before the service comes back.
 */
async function captureWhileServiceIsDown(order: PlacedOrder, meanwhile: () => Promise<void> = async () => undefined): Promise<void> {
  await expectAllDelivered(order, 1);
  await serviceDown();
  try {
    await medusa.api.capture(order);
    await eventually(async () => {
      const [, captured] = await deliveriesOf(order);
      expect(captured).toMatchObject({ event_name: 'payment.captured', status: 'pending', last_error: expect.stringMatching(/unreachable/) });
      expect(captured.attempts).toBeGreaterThanOrEqual(1);
    });
    await meanwhile();
  } finally {
    await serviceUp();
  }
}

describe('the plugin inside a real Medusa 2.21 store', () => {
  it("provisions the friend's offer as a promotion per referral code: the cart gets it, the order is attributed and credited", async () => {
    const { advocateId, code } = await enrolAdvocate();
    expect(await medusa.api.promotion(code)).toBeNull();

    const sync = await medusa.api.syncReferralPromotions();
    expect(sync).toMatchObject({ skipped: null });
    expect(sync.created).toBeGreaterThanOrEqual(1);
    const promotion = await medusa.api.promotion(code);
    expect(promotion).toMatchObject({
      code,
      status: 'active',
      type: 'standard',
      is_automatic: false,
      application_method: { type: 'fixed', target_type: 'order', allocation: 'across', value: 10, currency_code: 'eur' },
      rules: [{ attribute: 'item_subtotal', operator: 'gte', values: [expect.objectContaining({ value: '150' })] }],
      campaign: { budget: { type: 'use_by_attribute', attribute: 'customer_email', limit: 1 } },
      metadata: { referrals_brand_id: brand.brandId, referrals_advocate_id: advocateId, referral_share_link: `https://shop.example.com/?ref=${code}` },
    });
    // Again: nothing changed, nothing written.
    expect(await medusa.api.syncReferralPromotions()).toMatchObject({ created: 0, updated: 0, deactivated: 0 });

    const email = `friend-${Date.now()}@example.com`;
    // Below the minimum purchase (one tee, 100.00 < 150.00): no discount.
    expect(await medusa.api.cartWithCode(`small-${email}`, code, 1)).toMatchObject({ discountTotal: 0 });
    // Two tees: the friend's 10.00 off.
    expect(await medusa.api.cartWithCode(email, code, 2)).toMatchObject({ discountTotal: 10, codes: [code], refused: null });

    const order = await medusa.api.placeOrder(email, code);
    expect(await medusa.api.orderTotals(order)).toMatchObject({ total: 200 });
    await medusa.api.capture(order);
    await expectConversion(order, { status: 'completed', order_value: '200.00', referrer_reward_paid: '20.00', referral_code: code, source: 'medusa' });
    expect(await balanceOf(advocateId)).toBe(20);

    // Once per customer: the same email gets no second discount.
    expect(await medusa.api.cartWithCode(email, code, 2)).toMatchObject({ discountTotal: 0 });

    // The advocate deactivated on the service: their promotion is set inactive at the next sync.
    expect((await service.http.post(`/api/v1/advocates/${advocateId}/deactivate`).set({ 'X-API-Key': brand.apiKey, 'X-Brand-ID': brand.brandId })).status).toBe(200);
    expect(await medusa.api.syncReferralPromotions()).toMatchObject({ deactivated: 1 });
    expect(await medusa.api.promotion(code)).toMatchObject({ status: 'inactive' });
    expect(await medusa.api.cartWithCode(`late-${email}`, code, 2)).toMatchObject({ discountTotal: 0 });
  }, 120_000);

  it("lets a logged-in customer join from the storefront (POST /store/referrals/join) and see their code and figures (GET /store/referrals/me); a friend's order with the code credits them", async () => {
    const email = `mia-${Date.now()}@example.com`;
    const token = await medusa.api.registerCustomer(email, 'mia-secret-123', 'Mia');

    // Medusa's own customer authentication: no token, no figures.
    expect((await medusa.api.referrals('GET', 'me', null)).status).toBe(401);
    expect((await medusa.api.referrals('POST', 'join', null, { consent: true })).status).toBe(401);
    const notYet = await medusa.api.referrals('GET', 'me', token);
    expect([notYet.status, notYet.body.message]).toEqual([404, expect.stringMatching(/not joined the referral program/)]);
    expect((await medusa.api.referrals('POST', 'join', token, { consent: false })).status).toBe(400);

    // The email and first name are the customer's own in Medusa, whatever the body says.
    const joined = await medusa.api.referrals('POST', 'join', token, { consent: true, email: 'someone-else@example.com' });
    expect(joined).toEqual({ status: 201, body: { joined: true, referral_code: expect.stringMatching(/^MIA/), share_link: expect.stringMatching(/^https:\/\/shop\.example\.com\/\?ref=MIA/) } });
    const code: string = joined.body.referral_code;
    expect(await service.db('advocates').where({ brand_id: brand.brandId, email_normalized: email }).first()).toMatchObject({ first_name: 'Mia', consent_at: expect.any(Date) });
    expect((await medusa.api.referrals('POST', 'join', token, { consent: true })).body).toEqual({ ...joined.body, joined: false });
    expect((await medusa.api.referrals('GET', 'me', token)).body).toEqual({
      referral_code: code,
      share_link: joined.body.share_link,
      status: 'active',
      friends_referred: 0,
      rewards: { currency: 'EUR', held: 0, approved: 0, paid: 0, owed: 0 },
      reward_codes: [],
    });

    // A friend orders with the code (a promotion once the plugin's sync ran) and pays: Mia's page shows it.
    await medusa.api.syncReferralPromotions();
    const order = await medusa.api.placeOrder(`friend-of-mia-${Date.now()}@example.com`, code);
    await medusa.api.capture(order);
    await expectConversion(order, { status: 'completed', referrer_reward_paid: '20.00', referral_code: code });
    expect((await medusa.api.referrals('GET', 'me', token)).body).toMatchObject({ friends_referred: 1, rewards: { held: 0, approved: 20, paid: 0 } });
  }, 120_000);

  it('records a referral order once its payment is captured: 200.00 paid, reward 20.00, the claim converted', async () => {
    const { order, advocateId, code } = await givenReferralOrder();
    await expectAllDelivered(order, 1); // order.placed: authorized only, paid_total 0
    expect(await conversionOf(order)).toBeUndefined();

    await medusa.api.capture(order);
    const conversion = await expectConversion(order, { status: 'completed', order_value: '200.00', referrer_reward_paid: '20.00', referral_code: code, source: 'medusa' });
    const claim = await service.db('claims').where({ brand_id: brand.brandId, claim_id: conversion.claim_id }).first();
    expect(claim).toMatchObject({ status: 'converted', referral_code: code });
    expect(await balanceOf(advocateId)).toBe(20);
    await expectAllDelivered(order, 2);
  }, 90_000);

  it('reverses the reward pro rata on a partial refund (50.00 of 200.00), and the rest on the full refund', async () => {
    const { order, advocateId } = await givenReferralOrder();
    await medusa.api.capture(order);
    await expectConversion(order, { status: 'completed' });

    await medusa.api.refund(order, 50);
    // Medusa now says total 150.00 (a credit line), paid_total 200.00: the order value stays 200.00.
    await expectConversion(order, { status: 'partial_refund', order_value: '200.00', refunded_total: '50.00' });
    expect(await balanceOf(advocateId)).toBe(15);

    await medusa.api.refund(order, 150);
    await expectConversion(order, { status: 'refunded', order_value: '200.00', refunded_total: '200.00' });
    expect((await refundsOf(order)).map((refund) => refund.amount)).toEqual(['50.00', '150.00']);
    expect(await balanceOf(advocateId)).toBe(0);
  }, 90_000);

  it('records nothing for an order whose promotion is not a referral code, though every delivery is accepted', async () => {
    const code = `BLACKFRIDAY${Date.now()}`;
    await medusa.api.createPromotion(code, 10);
    const order = await medusa.api.placeOrder(`shopper-nonref-${Date.now()}@example.com`, code);
    await medusa.api.capture(order);
    await medusa.api.refund(order, 20);
    await expectAllDelivered(order, 3);
    expect(await conversionOf(order)).toBeUndefined();
    expect(await refundsOfPayment(order)).toEqual([]);
  }, 90_000);

  it('keeps a delivery pending while the service is down, and the scheduled job delivers it once the service is back', async () => {
    const { order, advocateId } = await givenReferralOrder();
    await captureWhileServiceIsDown(order, async () => {
      // What the merchant sees meanwhile, in Medusa's admin API.
      expect(await medusa.api.referralDeliveries()).toContainEqual(
        expect.objectContaining({ order_id: order.orderId, event_name: 'payment.captured', status: 'pending', last_error: expect.stringMatching(/unreachable/) }),
      );
    });
    await expectConversion(order, { status: 'completed', order_value: '200.00', referrer_reward_paid: '20.00' });
    expect(await balanceOf(advocateId)).toBe(20);
    await expectAllDelivered(order, 2);
    expect((await medusa.api.referralDeliveries()).filter((delivery) => delivery.order_id === order.orderId)).toEqual([]);
  }, 90_000);

  it('sends a delivery still pending when Medusa crashed, after Medusa is started again', async () => {
    const { order, advocateId } = await givenReferralOrder();
    await captureWhileServiceIsDown(order, () => medusa.crash());
    expect(await conversionOf(order)).toBeUndefined();

    await medusa.start();
    await expectConversion(order, { status: 'completed', order_value: '200.00' });
    expect(await balanceOf(advocateId)).toBe(20);
    await expectAllDelivered(order, 2);
  }, 180_000);

  it('ends with the same numbers when a refund is delivered before the capture: order value 200.00, not the 150.00 total', async () => {
    const { order, advocateId } = await givenReferralOrder();
    const captureDueIn = (ms: number) =>
      medusa.db('referral_delivery').where({ order_id: order.orderId, event_name: 'payment.captured' }).update({ next_attempt_at: new Date(Date.now() + ms) });
    // A long backoff for the capture's delivery, so the refund's is certainly received first; set
    // again if a job run that was failing to send it meanwhile wrote its own backoff over it.
    await captureWhileServiceIsDown(order, () =>
      eventually(async () => {
        await captureDueIn(3_600_000);
        await new Promise((resolve) => setTimeout(resolve, 500));
        const [, captured] = await deliveriesOf(order);
        expect(new Date(captured.next_attempt_at).getTime()).toBeGreaterThan(Date.now() + 1_800_000);
      }),
    );
    await medusa.api.refund(order, 50);
    await expectConversion(order, { status: 'partial_refund', order_value: '200.00', refunded_total: '50.00', referrer_reward_paid: '20.00' });
    const received = await service.db('medusa_deliveries').where({ brand_id: brand.brandId, order_id: order.orderId }).orderBy('received_at');
    expect(received.map((delivery) => delivery.event_name)).toEqual(['order.placed', 'payment.refunded']);

    await captureDueIn(0);
    await expectAllDelivered(order, 3);
    expect(await conversionOf(order)).toMatchObject({ status: 'partial_refund', order_value: '200.00', refunded_total: '50.00' });
    expect(await balanceOf(advocateId)).toBe(15);
  }, 120_000);

  it('refunds what was captured when an order is canceled after capture (Medusa emits no payment.refunded for it)', async () => {
    const { order, advocateId } = await givenReferralOrder();
    await medusa.api.capture(order);
    await expectConversion(order, { status: 'completed' });
    await medusa.api.refund(order, 50);
    await expectConversion(order, { status: 'partial_refund' });

    await medusa.api.cancel(order);
    await expectConversion(order, { status: 'refunded', order_value: '200.00', refunded_total: '200.00' });
    expect((await refundsOf(order)).map((refund) => refund.amount)).toEqual(['50.00', '150.00']);
    expect(await balanceOf(advocateId)).toBe(0);
    await expectAllDelivered(order, 4);
  }, 90_000);

  it("holds the deliveries while the store's default currency (USD) is not the brand's (EUR), and sends them once it is", async () => {
    await medusa.api.setStoreCurrencies('usd', ['eur']);
    try {
      const { order, advocateId } = await givenReferralOrder();
      await medusa.api.capture(order);
      await eventually(async () => {
        const deliveries = await deliveriesOf(order);
        expect(deliveries.map((delivery) => [delivery.event_name, delivery.status, delivery.attempts])).toEqual([
          ['order.placed', 'pending', 0],
          ['payment.captured', 'pending', 0],
        ]);
        expect(deliveries[1].last_error).toMatch(/default currency is USD and the referral brand .* is in EUR.*--currency USD/);
      });
      expect(await service.db('medusa_deliveries').where({ brand_id: brand.brandId, order_id: order.orderId })).toHaveLength(0);

      await medusa.api.setStoreCurrencies('eur');
      // The job's next run (every 10 s) reads the store again and sends what waited.
      await expectConversion(order, { status: 'completed', order_value: '200.00', referrer_reward_paid: '20.00' });
      await expectAllDelivered(order, 2);
      expect(await balanceOf(advocateId)).toBe(20);
    } finally {
      await medusa.api.setStoreCurrencies('eur');
    }
  }, 120_000);

  it('replays a rejected delivery through POST /admin/referral-deliveries/:id/retry (an authenticated admin route)', async () => {
    const { order, advocateId } = await givenReferralOrder();
    const captureDelivery = async () => (await deliveriesOf(order))[1];
    // The capture's delivery refused for good before the merchant fixed the cause (as a 422 for the brand's currency was).
    await captureWhileServiceIsDown(order, () =>
      eventually(async () => {
        await medusa.db('referral_delivery').where({ order_id: order.orderId, event_name: 'payment.captured' }).update({ status: 'rejected', last_error: 'refused (422): exchange_rate_required', settled_at: new Date() });
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(await captureDelivery()).toMatchObject({ status: 'rejected' });
      }),
    );
    const rejected = await captureDelivery();
    expect(await conversionOf(order)).toBeUndefined();

    expect((await medusa.api.retryReferralDelivery(rejected.id, false)).status).toBe(401);
    expect(await medusa.api.retryReferralDelivery('refdel_01UNKNOWN')).toMatchObject({ status: 404, body: { type: 'not_found' } });
    const retried = await medusa.api.retryReferralDelivery(rejected.id);
    expect(retried).toMatchObject({ status: 200, body: { referral_delivery: { id: rejected.id, status: 'pending', attempts: 0 } } });

    await expectConversion(order, { status: 'completed', order_value: '200.00', referrer_reward_paid: '20.00' });
    expect(await balanceOf(advocateId)).toBe(20);
    await expectAllDelivered(order, 2);
    expect(await medusa.api.retryReferralDelivery(rejected.id)).toMatchObject({ status: 409, body: { type: 'conflict' } });
  }, 120_000);
  it("makes an approved reward a promotion only the advocate's customer can use, once: their cart applies it, a second is refused, and the paid order records the advocate's claim", async () => {
    await setFulfilment('coupon');
    try {
      // Ava has an account in the store and joins from the storefront; a friend's captured order with her code earns her 20.00.
      const email = `ava-${Date.now()}@example.com`;
      const token = await medusa.api.registerCustomer(email, 'ava-secret-123', 'Ava');
      const code = (await medusa.api.referrals('POST', 'join', token, { consent: true })).body.referral_code as string;
      const advocate = await service.db('advocates').where({ brand_id: brand.brandId, email_normalized: email }).first();
      await medusa.api.syncReferralPromotions();
      const referred = await medusa.api.placeOrder(`friend-of-ava-${Date.now()}@example.com`, code);
      await medusa.api.capture(referred);
      await expectConversion(referred, { status: 'completed', referrer_reward_paid: '20.00' });

      // Approved at once (no hold): the plugin's job (every 10 s) makes its code a promotion and reports it.
      const issue = await eventually(async () => {
        const row = await service.db('reward_issues').where({ brand_id: brand.brandId, advocate_id: advocate.advocate_id }).first();
        expect(row).toMatchObject({ status: 'issued', amount: '20.00', currency: 'EUR', platform_id: expect.stringMatching(/^promo_/) });
        return row;
      });
      const customers = await medusa.db('customer').where({ email }).whereNull('deleted_at').select('id');
      expect(customers).toHaveLength(1);
      expect(await medusa.api.promotion(issue.code)).toMatchObject({
        id: issue.platform_id,
        code: issue.code,
        status: 'active',
        type: 'standard',
        is_automatic: false,
        limit: 1,
        application_method: { type: 'fixed', target_type: 'order', allocation: 'across', value: 20, currency_code: 'eur' },
        rules: [{ attribute: 'customer.id', operator: 'in', values: [expect.objectContaining({ value: customers[0].id })] }],
      });
      expect((await medusa.api.referrals('GET', 'me', token)).body.reward_codes).toEqual([
        { issue_id: Number(issue.issue_id), code: issue.code, amount: 20, currency: 'EUR', state: 'ready', created_at: expect.any(String), issued_at: expect.any(String) },
      ]);

      // Another shopper with the code gets nothing; Ava's own cart gets 20.00 off.
      expect(await medusa.api.cartWithCode(`stranger-${Date.now()}@example.com`, issue.code, 2)).toMatchObject({ discountTotal: 0, codes: [] });
      expect(await medusa.api.cartWithCode(email, issue.code, 2, token)).toMatchObject({ discountTotal: 20, codes: [issue.code] });
      const own = await medusa.api.placeOrder(email, issue.code, 2, token);
      expect(await medusa.api.orderTotals(own)).toMatchObject({ total: 190 });
      // Once: her second cart is refused the code.
      expect(await medusa.api.cartWithCode(email, issue.code, 2, token)).toMatchObject({ discountTotal: 0, codes: [] });

      // Paid: the order's snapshot carries the code, which the service records as Ava's own claim.
      await medusa.api.capture(own);
      const claim = await eventually(async () => {
        const spent = await service.db('reward_issues').where({ brand_id: brand.brandId, issue_id: issue.issue_id }).first();
        expect(spent.spent_claim_id).not.toBeNull();
        return service.db('claims').where({ brand_id: brand.brandId, claim_id: spent.spent_claim_id }).first();
      });
      expect(claim).toMatchObject({ type: 'advocate', status: 'converted', order_id: own.orderId, email, referral_code: code });
      expect((await medusa.api.referrals('GET', 'me', token)).body.reward_codes).toMatchObject([{ code: issue.code, state: 'used' }]);
    } finally {
      await setFulfilment('payout');
    }
  }, 150_000);
  it('takes an unused reward code back when the referred order is refunded half: its promotion is deleted, the code no longer applies to a cart, and a 10.00 code takes its place', async () => {
    await setFulfilment('coupon');
    try {
      const email = `cai-${Date.now()}@example.com`;
      const token = await medusa.api.registerCustomer(email, 'cai-secret-123', 'Cai');
      const code = (await medusa.api.referrals('POST', 'join', token, { consent: true })).body.referral_code as string;
      const advocate = await service.db('advocates').where({ brand_id: brand.brandId, email_normalized: email }).first();
      await medusa.api.syncReferralPromotions();
      const referred = await medusa.api.placeOrder(`friend-of-cai-${Date.now()}@example.com`, code);
      await medusa.api.capture(referred);
      await expectConversion(referred, { status: 'completed', referrer_reward_paid: '20.00' });
      const issuesOf = () => service.db('reward_issues').where({ brand_id: brand.brandId, advocate_id: advocate.advocate_id }).orderBy('issue_id');
      const issue = await eventually(async () => {
        const [row] = await issuesOf();
        expect(row).toMatchObject({ status: 'issued', amount: '20.00', platform_id: expect.stringMatching(/^promo_/) });
        return row;
      });
      expect(await medusa.api.cartWithCode(email, issue.code, 2, token)).toMatchObject({ discountTotal: 20, codes: [issue.code] });

      // Half the referred order refunded in Medusa: 10.00 of the reward reversed, which the unused 20.00 code covers.
      await medusa.api.refund(referred, 100);
      const [revoked, replacement] = await eventually(async () => {
        const rows = await issuesOf();
        expect(rows).toMatchObject([{ status: 'revoked', revoke_reason: 'refund' }, { status: 'issued', amount: '10.00' }]);
        return rows;
      });
      expect(revoked.replaced_by).toBe(replacement.issue_id);
      expect(await medusa.api.promotion(issue.code)).toBeNull();
      expect(await medusa.api.cartWithCode(email, issue.code, 2, token)).toMatchObject({ discountTotal: 0, codes: [] });
      expect(await medusa.api.cartWithCode(email, replacement.code, 2, token)).toMatchObject({ discountTotal: 10, codes: [replacement.code] });
      expect(await rewardBalance(service.db, brand.brandId, advocate.advocate_id)).toMatchObject({ balance: 0, owed: 0 });
    } finally {
      await setFulfilment('payout');
    }
  }, 150_000);
});

import { closeServer, listen, useListeningService } from '../helpers/listen';
import type { AddressInfo } from 'node:net';
import sendPendingReferralDeliveries from '../../connectors/medusa/plugin/src/jobs/send-pending-referral-deliveries';
import { CurrencyGate, MISMATCH_REPEAT_LOG_MS, readStoreDefaultCurrency } from '../../connectors/medusa/plugin/src/lib/currency-check';
import type { QueryGraph } from '../../connectors/medusa/plugin/src/lib/order-graph';
import * as orderPlaced from '../../connectors/medusa/plugin/src/subscribers/order-placed';
import type { App } from '../../server/app';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { freePort } from '../helpers/free-port';
import type { TestApp } from '../helpers/test-app';
import { FakeMedusaContainer, type SubscriberModule } from './fake-medusa-container';
import type { OrderState } from './order-graphs';

let service: TestApp;
let serviceUrl: string;
useListeningService((listening) => ({ service, serviceUrl } = listening));

const brandIn = (currency: string) =>
  givenBrand(service.db, { plan: 'premier', reward_type: 'percentage', reward_value: 10, reward_hold_days: 0, currency });

/** A Medusa store (default currency EUR unless changed) whose plugin reports to `brand`; a paid order with `code` (7.00 off: 63.00). */
function givenStore(brand: { brandId: string; apiKey: string }, code: string) {
  const medusa = new FakeMedusaContainer({ serviceUrl, brandId: brand.brandId, apiKey: brand.apiKey, retryBaseDelayMs: 20, retryMaxDelayMs: 200 });
  const order: OrderState = { id: `order_${uniqueOrderId()}`, email: `buyer-${uniqueOrderId()}@example.com`, promotions: [{ code, discount: 7 }], paid: 'all' };
  const emit = (subscriber: SubscriberModule) => medusa.emit(subscriber, order);
  return { medusa, order, emit };
}

/** Medusa started again with other plugin options, on the same database (its deliveries and orders). */
function restartWith(previous: FakeMedusaContainer, brand: { brandId: string; apiKey: string }): FakeMedusaContainer {
  const medusa = new FakeMedusaContainer({ serviceUrl, brandId: brand.brandId, apiKey: brand.apiKey, retryBaseDelayMs: 20, retryMaxDelayMs: 200 });
  medusa.deliveries.rows.push(...previous.deliveries.rows);
  for (const order of previous.orders.values()) medusa.save(order);
  medusa.storeCurrencies = previous.storeCurrencies;
  return medusa;
}

const receivedBy = (brandId: string) => service.db('medusa_deliveries').where({ brand_id: brandId });
const errorsOf = (medusa: FakeMedusaContainer) => medusa.logs.filter((log) => log.level === 'error').map((log) => log.message);

describe("the plugin compares the store's default currency with the brand's before delivering", () => {
  it('holds every snapshot, pending and unsent, while a EUR store reports to a USD brand, and says why once, naming both currencies and the fix', async () => {
    const usd = await brandIn('USD');
    const advocate = await givenAdvocate(service.db, usd.brandId);
    const store = givenStore(usd, advocate.code);

    await store.emit(orderPlaced);
    await sendPendingReferralDeliveries(store.medusa.container);
    await sendPendingReferralDeliveries(store.medusa.container);

    const [row] = store.medusa.deliveries.rows;
    expect(row).toMatchObject({ status: 'pending', attempts: 0, settled_at: null, last_error: expect.stringMatching(/default currency is EUR .* is in USD/) });
    expect(row!.next_attempt_at.getTime()).toBeLessThanOrEqual(Date.now());
    expect(await receivedBy(usd.brandId)).toHaveLength(0);
    expect(await service.db('conversions').where({ brand_id: usd.brandId })).toHaveLength(0);

    const errors = errorsOf(store.medusa);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("the store's default currency is EUR");
    expect(errors[0]).toContain(`brand ${usd.brandId} is in USD`);
    expect(errors[0]).toContain('exchange_rate_required');
    expect(errors[0]).toContain('referrals brand create --name <name> --plan <plan> --currency EUR');
    expect(errors[0]).toContain('another brand in EUR');
  });

  it("finds the mismatch at the job's first run after start-up, before any order", async () => {
    const usd = await brandIn('USD');
    const medusa = new FakeMedusaContainer({ serviceUrl, brandId: usd.brandId, apiKey: usd.apiKey });
    await sendPendingReferralDeliveries(medusa.container);
    expect(errorsOf(medusa)).toEqual([expect.stringMatching(/not delivering orders: the store's default currency is EUR and the referral brand .* is in USD/)]);
  });

  it('sends what waited, credited, once Medusa runs again with a brand in the store currency', async () => {
    const usd = await brandIn('USD');
    const eur = await brandIn('EUR');
    const advocate = await givenAdvocate(service.db, eur.brandId);
    const store = givenStore(usd, advocate.code); // the wrong brand configured
    await store.emit(orderPlaced);
    expect(store.medusa.deliveries.rows).toEqual([expect.objectContaining({ status: 'pending', attempts: 0 })]);

    const fixed = restartWith(store.medusa, eur);
    await sendPendingReferralDeliveries(fixed.container);

    expect(fixed.deliveries.rows).toEqual([expect.objectContaining({ status: 'delivered', attempts: 1, last_error: null })]);
    expect(await service.db('conversions').where({ brand_id: eur.brandId, order_id: store.order.id }).first()).toMatchObject({
      status: 'completed',
      currency: 'EUR',
      order_value: '63.00',
      referrer_reward_paid: '6.30',
    });
    expect(errorsOf(fixed)).toEqual([]);
  });

  it("sees the store's default currency changed in Medusa's admin at the next job run", async () => {
    const usd = await brandIn('USD');
    const store = givenStore(usd, 'NOTAREFERRAL');
    await store.emit(orderPlaced);
    expect(store.medusa.deliveries.rows[0]).toMatchObject({ status: 'pending', attempts: 0 });

    store.medusa.storeCurrencies = [
      { currency_code: 'eur', is_default: false },
      { currency_code: 'usd', is_default: true },
    ];
    await sendPendingReferralDeliveries(store.medusa.container);
    // Sent now; this order itself is in EUR, which the USD brand refuses: rejected with the service's answer.
    expect(store.medusa.deliveries.rows[0]).toMatchObject({ status: 'rejected', attempts: 1, last_error: expect.stringMatching(/\(422\).*exchange_rate_required/) });
    expect(store.medusa.logs).toContainEqual({ level: 'info', message: expect.stringMatching(/both USD now; sending the order snapshots that waited/) });
  });

  it('delivers as before when the service cannot be asked (down): the attempt fails and is retried, nothing is held', async () => {
    const eur = await brandIn('EUR');
    const medusa = new FakeMedusaContainer({ serviceUrl: `http://127.0.0.1:${await freePort()}`, brandId: eur.brandId, apiKey: eur.apiKey });
    const gate = new CurrencyGate(medusa.deliveries.options);
    const query = medusa.container.resolve<QueryGraph>('query');
    expect(await gate.check(query, medusa.container.resolve('logger'))).toMatchObject({ state: 'unknown', reason: expect.stringMatching(/brand's currency could not be read: referral service unreachable/) });
    expect(await gate.allows(query, medusa.container.resolve('logger'))).toBe(true);
    expect(medusa.logs.filter((log) => log.level === 'warn')).toHaveLength(1); // the same reason is not logged again
  });
});

describe('the currency gate', () => {
  /** A referral service that answers GET /api/v1/brand with `currency`, counting the calls. */
  async function brandEndpoint(currency: string) {
    const calls: Array<Record<string, string | string[] | undefined>> = [];
    const listening = await listen((req, res) => {
      calls.push(req.headers);
      res.writeHead(req.url === '/api/v1/brand' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: true, data: { brand_id: 'b', currency } }));
    });
    return { url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}`, calls, close: () => closeServer(listening) };
  }

  it('reads the default among the store currencies, in upper case; none marked default is no answer', async () => {
    const medusa = new FakeMedusaContainer({ serviceUrl, brandId: '3f1e6c1a-1111-4222-8333-944455556666', apiKey: 'rk_x' });
    const query = medusa.container.resolve<QueryGraph>('query');
    medusa.storeCurrencies = [
      { currency_code: 'usd', is_default: false },
      { currency_code: 'kwd', is_default: true },
    ];
    expect(await readStoreDefaultCurrency(query)).toBe('KWD');
    expect(medusa.queries.at(-1)).toMatchObject({ entity: 'store', fields: ['id', 'supported_currencies.currency_code', 'supported_currencies.is_default'] });
    medusa.storeCurrencies = [{ currency_code: 'usd', is_default: false }];
    expect(await readStoreDefaultCurrency(query)).toBeNull();
  });

  it("asks the service once for the brand's currency, with the key, shares one read between concurrent checks, and reads the store at every check", async () => {
    const endpoint = await brandEndpoint('EUR');
    try {
      let now = 1_000_000;
      const brandId = '3f1e6c1a-1111-4222-8333-944455556666';
      const medusa = new FakeMedusaContainer({ serviceUrl: endpoint.url, brandId, apiKey: 'rk_live_key' });
      const gate = new CurrencyGate(medusa.deliveries.options, () => now);
      const query = medusa.container.resolve<QueryGraph>('query');
      const logger = medusa.container.resolve('logger');
      const storeReads = () => medusa.queries.filter((read) => read.entity === 'store').length;

      const verdicts = await Promise.all([gate.check(query, logger), gate.check(query, logger), gate.check(query, logger)]);
      expect(verdicts).toEqual(Array(3).fill({ state: 'match', currency: 'EUR' }));
      expect(endpoint.calls).toHaveLength(1);
      expect(endpoint.calls[0]).toMatchObject({ 'x-api-key': 'rk_live_key', 'x-brand-id': brandId });
      expect(storeReads()).toBe(1);

      // The merchant makes USD the default in Medusa's admin: seen at the next check.
      medusa.storeCurrencies = [{ currency_code: 'usd', is_default: true }];
      expect(await gate.check(query, logger)).toMatchObject({ state: 'mismatch', storeCurrency: 'USD', brandCurrency: 'EUR' });
      expect(await gate.allows(query, logger)).toBe(false);
      expect(await gate.allows(query, logger)).toBe(false);
      expect(storeReads()).toBe(4);
      expect(endpoint.calls).toHaveLength(1);
      // Logged when found, then hourly while it stands.
      expect(errorsOf(medusa)).toHaveLength(1);
      now += MISMATCH_REPEAT_LOG_MS;
      await gate.check(query, logger);
      expect(errorsOf(medusa)).toHaveLength(2);

      medusa.storeCurrencies = [{ currency_code: 'eur', is_default: true }];
      expect(await gate.allows(query, logger)).toBe(true);
      expect(medusa.logs.at(-1)).toEqual({ level: 'info', message: expect.stringMatching(/both EUR now/) });
    } finally {
      await endpoint.close();
    }
  });
});

import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { hexHmacSha256 } from '../helpers/signed-convert';
import { startTestApp } from '../helpers/test-app';
import { closeTestDatabase } from '../helpers/test-database';
import { type OrderState, snapshotBody } from '../medusa/order-graphs';

afterAll(closeTestDatabase);

/** A Medusa store selling in EUR (the snapshots' currency_code), reporting to a brand in `currency`. */
async function givenStoreReportingTo(currency: string) {
  const service = await startTestApp();
  const brand = await givenBrand(service.db, { plan: 'premier', reward_type: 'percentage', reward_value: 10, currency });
  const advocate = await givenAdvocate(service.db, brand.brandId);
  const order: OrderState = { id: `order_${uniqueOrderId()}`, email: 'buyer@example.com', promotions: [{ code: advocate.code, discount: 7 }], paid: 'all' };
  const deliver = (body: string) =>
    service.http.post('/medusa/webhooks').set({ 'Content-Type': 'application/json', 'X-Brand-ID': brand.brandId, 'X-AL-Signature': hexHmacSha256(brand.apiKey, body) }).send(body);
  return { service, brand, order, deliver };
}

describe('Medusa orders and the brand\'s currency', () => {
  it('records a EUR order for a EUR brand in EUR', async () => {
    const { service, brand, order, deliver } = await givenStoreReportingTo('EUR');
    const response = await deliver(snapshotBody(order, { event_name: 'payment.captured' }));
    expect(response.status).toBe(200);
    expect(await service.db('conversions').where({ brand_id: brand.brandId, order_id: order.id }).first()).toMatchObject({ currency: 'EUR', exchange_rate: null, order_value: '63.00', referrer_reward_paid: '6.30' });
  });

  it('refuses a EUR order for a USD brand with 422 naming exchange_rate (the plugin keeps it as refused), recording nothing', async () => {
    const { service, brand, order, deliver } = await givenStoreReportingTo('USD');
    const response = await deliver(snapshotBody(order, { event_name: 'payment.captured' }));
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      success: false,
      error: 'exchange_rate is required: the order is in EUR and the brand\'s currency is USD (send USD per 1 EUR, e.g. "1.0825")',
      code: 'exchange_rate_required',
    });
    expect(await service.db('conversions').where({ brand_id: brand.brandId })).toHaveLength(0);
    expect(await service.db('claims').where({ brand_id: brand.brandId })).toHaveLength(0);
    expect(await service.db('medusa_deliveries').where({ brand_id: brand.brandId })).toHaveLength(0);
  });
});

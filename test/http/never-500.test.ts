import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { signedHeaders } from '../helpers/signed-convert';
import { type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

/** Values of every JSON type and a few hostile ones, put in place of each field in turn. */
const ODD_VALUES: unknown[] = [null, 0, -1, 1.5, 1e300, 9007199254740993, '', 'x'.repeat(3000), '12', true, [], [{}], {}, { a: 1 }, 'not-a-uuid'];

describe('no input makes the API answer 500', () => {
  it.each(['visit', 'claim', 'conversion', 'refund', 'check-eligibility', 'convert'])('POST %s answers every odd field value with a 2xx or 4xx', async (endpoint) => {
    const brand = await givenBrand(t.db, { plan: 'premier' });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const valid: Record<string, Record<string, unknown>> = {
      visit: { referral_code: advocate.code, visitor_id: '8f14e45f-ceea-467f-a9f0-5f7a9a1b2c3d', existing_code: advocate.code, landing_page: 'https://shop.example/?ref=x', utm_source: 'sms' },
      claim: { referral_code: advocate.code, email: 'c@example.com', name: 'C', raw_value: 100, claim_value: 90, order_id: 'o', products: [{ name: 'x' }], items: [{ name: 'y' }], coupons_applied: [{ code: 'A' }], metadata: {} },
      conversion: { email: 'c@example.com', order_id: uniqueOrderId(), order_value: 10, referral_code: advocate.code, claim_id: 1, visitor_id: 'v', products: [{ name: 'x' }], coupons_applied: [{ code: 'A' }], metadata: {} },
      refund: { order_id: 'o', conversion_id: 1, claim_id: 1, refund_amount: 1, is_full_refund: false, refund_id: 'r', total_refunded: 1, new_status: 'refunded' },
      'check-eligibility': { referral_code: advocate.code, customer_email: 'c@example.com', type: 'referral' },
      convert: { referral_code: advocate.code, email: 'c@example.com', value: 10, customer_name: 'C', metadata: {} },
    };
    const base = valid[endpoint]!;
    const path = endpoint === 'convert' ? '/api/v1/convert' : `/api/v1/track/${endpoint}`;
    for (const field of Object.keys(base)) {
      for (const value of ODD_VALUES) {
        const body = JSON.stringify({ ...base, [field]: value });
        const headers = endpoint === 'convert' ? signedHeaders(brand.brandId, brand.apiKey, body) : brand.headers;
        const response = await t.http.post(path).set(headers).set('Content-Type', 'application/json').send(body);
        if (response.status >= 500) throw new Error(`${endpoint} ${field}=${JSON.stringify(value).slice(0, 40)} → ${response.status} ${JSON.stringify(response.body)}`);
        expect(response.status).toBeLessThan(500);
      }
    }
  });
});

import { type TestBrand, givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';

/**
 * GET /api/v1/advocates/by-email?email=: one advocate with their figures, found by the address a
 * platform knows its logged-in customer by (the Medusa plugin's GET /store/referrals/me reads it
 * with the secret key): their code and link, the friends they referred, their rewards held,
 * approved and paid — theirs only.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

const byEmail = (brand: TestBrand, email: string) => t.http.get(`/api/v1/advocates/by-email?email=${encodeURIComponent(email)}`).set(brand.headers);
const order = (brand: TestBrand, code: string, value = 100) =>
  t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: `friend-${uniqueOrderId()}@example.com`, order_id: uniqueOrderId(), order_value: value, referral_code: code });

describe('GET /api/v1/advocates/by-email', () => {
  it('answers the advocate who joined, found in any case, with their code, link, friends referred and rewards by status', async () => {
    const brand = await givenBrand(t.db, { reward_hold_days: 0, reward_type: 'percentage', reward_value: 20, store_url: 'https://shop.example.com' });
    const email = `ann-${Date.now()}@example.com`;
    const joined = await t.http.post('/api/v1/advocates/join').set(brand.headers).send({ email, first_name: 'Ann', consent: true });
    expect(joined.status).toBe(201);
    const code: string = joined.body.data.referral_code;
    const other = await givenAdvocate(t.db, brand.brandId, { first_name: 'Bob' });

    const fresh = await byEmail(brand, `  ${email.toUpperCase()} `);
    expect(fresh.status).toBe(200);
    expect(fresh.body.data).toMatchObject({
      email,
      first_name: 'Ann',
      status: 'active',
      referral_codes: [code],
      share_link: joined.body.data.share_link,
      friends_referred: 0,
      rewards: { currency: 'USD', held: 0, approved: 0, paid: 0 },
    });

    // Two friends order (20.00 each, approved at once: no hold); one reward is paid out. Bob's friend is not Ann's.
    expect((await order(brand, code)).status).toBe(201);
    expect((await order(brand, other.code)).status).toBe(201);
    const payable = (await t.http.get('/api/v1/payouts').set(brand.headers)).body.data.payouts as Array<{ payout_id: string; advocate_id: number; amount: number }>;
    const ann = payable.find((line) => line.advocate_id === fresh.body.data.advocate_id)!;
    expect((await t.http.post('/api/v1/payouts/mark-paid').set(brand.headers).send({ payouts: [ann] })).status).toBe(200);
    expect((await order(brand, code)).status).toBe(201);

    const figures = (await byEmail(brand, email)).body.data;
    expect(figures).toMatchObject({ friends_referred: 2, rewards: { currency: 'USD', held: 0, approved: 20, paid: 20 } });
    expect((await byEmail(brand, `${other.code}@nowhere.example`)).status).toBe(404);
  });

  it('counts a reward still in its hold as held', async () => {
    const brand = await givenBrand(t.db, { reward_hold_days: 14, reward_type: 'percentage', reward_value: 10 });
    const advocate = await givenAdvocate(t.db, brand.brandId, { first_name: 'Cat' });
    expect((await order(brand, advocate.code, 150)).status).toBe(201);
    expect((await byEmail(brand, advocate.email)).body.data).toMatchObject({ friends_referred: 1, rewards: { held: 15, approved: 0, paid: 0 } });
  });

  it('answers 404 for an address that never joined (or joined another brand), 400 naming the field for a malformed one, 401 without the key', async () => {
    const brand = await givenBrand(t.db);
    const elsewhere = await givenBrand(t.db);
    const email = `dan-${Date.now()}@example.com`;
    expect((await t.http.post('/api/v1/advocates/join').set(elsewhere.headers).send({ email, first_name: 'Dan', consent: true })).status).toBe(201);

    const unknown = await byEmail(brand, email);
    expect([unknown.status, unknown.body.code, unknown.body.error]).toEqual([404, 'not_found', expect.stringMatching(/not joined the referral program/)]);
    const malformed = await byEmail(brand, 'not-an-address');
    expect([malformed.status, malformed.body.error]).toEqual([400, expect.stringMatching(/^email/)]);
    const missing = await t.http.get('/api/v1/advocates/by-email').set(brand.headers);
    expect([missing.status, missing.body.error]).toEqual([400, expect.stringMatching(/^email/)]);
    expect((await t.http.get(`/api/v1/advocates/by-email?email=${encodeURIComponent(email)}`)).status).toBe(401);
  });
});

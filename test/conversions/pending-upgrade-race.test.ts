import { rewardBalance } from '../../core/ledger/reward-ledger';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

describe('POST /api/v1/track/conversion, a pending order completed by concurrent repeats', () => {
  it('answers every repeat with the completed conversion and credits the reward once', async () => {
    const brand = await givenBrand(t.db, { reward_type: 'fixed', reward_value: 6, reward_hold_days: 0 });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const body = { email: 'race@example.com', order_id: uniqueOrderId(), order_value: 60, referral_code: advocate.code };
    const pending = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ ...body, status: 'pending' });
    expect(pending.status).toBe(201);

    const repeats = await Promise.all(
      Array.from({ length: 20 }, () => t.http.post('/api/v1/track/conversion').set(brand.headers).send({ ...body, status: 'completed' })),
    );
    for (const repeat of repeats) {
      expect(repeat.status).toBe(200);
      expect(repeat.body.data).toMatchObject({ id: pending.body.data.id, status: 'completed', duplicate: true });
    }
    expect(await t.db('reward_ledger').where({ brand_id: brand.brandId, kind: 'credit' })).toHaveLength(1);
    expect((await rewardBalance(t.db, brand.brandId, advocate.advocateId)).balance).toBe(6);
  });
});

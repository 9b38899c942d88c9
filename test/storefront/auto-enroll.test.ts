import { processEnrollments } from '../../core/advocates/auto-enroll';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

const order = (headers: Record<string, string>, body: Record<string, unknown>) => t.http.post('/api/v1/track/conversion').set(headers).send({ order_id: uniqueOrderId(), order_value: 40, ...body });

describe('auto_enroll_customers: every paying customer an advocate', () => {
  it('enrols the customer of a paid order once, referred or not, with a code and the welcome email; repeats and known advocates ask nothing more', async () => {
    const brand = await givenBrand(t.db, { plan: 'premier' });
    const referrer = await givenAdvocate(t.db, brand.brandId);
    expect((await t.http.patch('/api/v1/brand').set(brand.headers).send({ auto_enroll_customers: true })).status).toBe(200);
    const stamp = Date.now();
    const referred = await order(brand.headers, { email: `jane.doe-${stamp}@example.com`, referral_code: referrer.code });
    expect(referred.status).toBe(201);
    const walkIn = await order(brand.headers, { email: `walk-in-${stamp}@example.com`, customer_name: 'Olu Adé' });
    expect(walkIn.status).toBe(200);
    expect(walkIn.body.data).toMatchObject({ attributed: false });
    await order(brand.headers, { email: `walk-in-${stamp}@example.com` }); // a second order of the same customer
    await order(brand.headers, { email: referrer.email }); // an advocate already
    expect(await t.db('advocate_enrollments').where({ brand_id: brand.brandId })).toHaveLength(3);

    while ((await processEnrollments(t.db, { limit: 100, brandId: brand.brandId })) > 0);
    const advocates = await t.db('advocates').where({ brand_id: brand.brandId }).orderBy('advocate_id');
    expect(advocates.map((a) => [a.email, a.first_name])).toEqual([
      [referrer.email, 'Ann'],
      [`jane.doe-${stamp}@example.com`, 'Jane'],
      [`walk-in-${stamp}@example.com`, 'Olu'],
    ]);
    const welcomed = await t.db('mail_messages').where({ brand_id: brand.brandId, template: 'advocate_welcome' });
    expect(welcomed).toHaveLength(2);
    expect(await t.db('advocate_enrollments').where({ brand_id: brand.brandId })).toHaveLength(0);
    // The referred order still credited its referrer.
    expect(await t.db('rewards').where({ brand_id: brand.brandId, advocate_id: referrer.advocateId })).toHaveLength(1);
  });

  it('asks nothing of a brand without the switch', async () => {
    const brand = await givenBrand(t.db, { plan: 'premier' });
    await order(brand.headers, { email: `someone-${Date.now()}@example.com` });
    expect(await t.db('advocate_enrollments').where({ brand_id: brand.brandId })).toHaveLength(0);
  });
});

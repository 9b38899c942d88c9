import { deleteBrand } from '../../core/brands/delete-brand';
import { exportCustomer } from '../../core/customers/export-customer';
import { redactCustomer } from '../../core/customers/redact-customer';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

/** A premier brand where ann@ and bob@ each claimed and bought with the advocate's code. */
async function brandWithAnnAndBob() {
  const brand = await givenBrand(t.db, { plan: 'premier', reward_type: 'fixed', reward_value: 5, reward_hold_days: 0 });
  const advocate = await givenAdvocate(t.db, brand.brandId, { email: 'adv@example.com' });
  const orders: Record<string, string> = {};
  for (const email of ['ann@example.com', 'bob@example.com']) {
    const claim = await t.http.post('/api/v1/track/claim').set(brand.headers).send({ referral_code: advocate.code, email, name: email.split('@')[0], phone: '+15550100', raw_value: 40 });
    expect(claim.status).toBe(201);
    orders[email] = uniqueOrderId();
    const conversion = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email, order_id: orders[email], order_value: 40 });
    expect(conversion.status).toBe(201);
  }
  return { brand, advocate, orders };
}

describe('personal data (core/customers, core/brands/delete-brand)', () => {
  it('exports what a brand holds about one customer, found by email or by order', async () => {
    const { brand, orders } = await brandWithAnnAndBob();
    const byEmail = await exportCustomer(t.db, brand.brandId, { email: 'ann@example.com', order_ids: [] });
    expect(byEmail).toMatchObject({
      customer_email: 'ann@example.com',
      advocate: null,
      claims: [{ email: 'ann@example.com', customer_name: 'ann', phone: '+15550100', status: 'converted' }],
      conversions: [{ order_id: orders['ann@example.com'], email: 'ann@example.com', order_value: '40.00' }],
    });
    const byOrder = await exportCustomer(t.db, brand.brandId, { email: null, order_ids: [orders['bob@example.com']!] });
    expect(byOrder.conversions.map((row) => row.email)).toEqual(['bob@example.com']);
    expect(JSON.stringify(byOrder)).not.toContain('ann@example.com');
    expect(await exportCustomer(t.db, brand.brandId, { email: null, order_ids: [] })).toMatchObject({ claims: [], conversions: [] });
  });

  it('redacts one customer: personal fields replaced, money kept, other customers untouched', async () => {
    const { brand, advocate, orders } = await brandWithAnnAndBob();
    const redacted = await t.db.transaction((trx) => redactCustomer(trx, brand.brandId, { email: 'ann@example.com', order_ids: [] }));
    expect(redacted).toEqual({ conversions: 1, claims: 1, advocates: 0 });

    const ann = await t.db('conversions').where({ brand_id: brand.brandId, order_id: orders['ann@example.com'] }).first();
    expect(ann).toMatchObject({ customer_name: null, order_value: '40.00', referrer_reward_paid: '5.00' });
    expect(ann.email).toMatch(/^redacted-[0-9a-f-]+@redacted\.invalid$/);
    const annClaim = await t.db('claims').where({ brand_id: brand.brandId, claim_id: ann.claim_id }).first();
    expect(annClaim).toMatchObject({ email: ann.email, customer_name: null, phone: null, raw_value: '40.00' });
    expect(await t.db('conversions').where({ brand_id: brand.brandId, order_id: orders['bob@example.com'] }).first()).toMatchObject({ email: 'bob@example.com' });
    expect(await t.db('reward_ledger').where({ brand_id: brand.brandId, advocate_id: advocate.advocateId, kind: 'credit' })).toHaveLength(2);
  });

  it('redacting an advocate keeps their codes and ledger', async () => {
    const { brand, advocate } = await brandWithAnnAndBob();
    const redacted = await t.db.transaction((trx) => redactCustomer(trx, brand.brandId, { email: 'adv@example.com', order_ids: [] }));
    expect(redacted).toEqual({ conversions: 0, claims: 0, advocates: 1 });
    expect(await t.db('advocates').where({ brand_id: brand.brandId, advocate_id: advocate.advocateId }).first()).toMatchObject({ first_name: 'Redacted', last_name: null });
    expect(await t.db('referral_codes').where({ brand_id: brand.brandId, advocate_id: advocate.advocateId })).toHaveLength(1);
    expect(await t.db('reward_ledger').where({ brand_id: brand.brandId, advocate_id: advocate.advocateId })).toHaveLength(2);
  });

  it('deletes a brand with every row it owns, and nothing of another brand', async () => {
    const doomed = await brandWithAnnAndBob();
    const kept = await brandWithAnnAndBob();
    await t.db.transaction((trx) => deleteBrand(trx, doomed.brand.brandId));
    for (const table of ['brands', 'api_keys', 'advocates', 'referral_codes', 'claims', 'conversions', 'reward_ledger']) {
      expect([table, await t.db(table).where({ brand_id: doomed.brand.brandId })]).toEqual([table, []]);
      expect([table, (await t.db(table).where({ brand_id: kept.brand.brandId })).length > 0]).toEqual([table, true]);
    }
  });
});

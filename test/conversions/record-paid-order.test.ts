import { getBrand } from '../../core/brands/brand';
import { recordPaidOrder } from '../../core/conversions/record-paid-order';
import { conversionInputSchema } from '../../core/conversions/conversion-input';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { testDatabase } from '../helpers/test-database';

async function paidOrder(plan: 'premier' | 'growth', codes: (code: string) => string[]) {
  const db = await testDatabase();
  const { brandId } = await givenBrand(db, { plan });
  const advocate = await givenAdvocate(db, brandId);
  const brand = await getBrand(db, brandId);
  const orderId = uniqueOrderId();
  const conversion = conversionInputSchema.parse({ email: 'Buyer@Example.com', order_id: orderId, order_value: 90, total_discount: 10, referral_code: null, coupons_applied: codes(advocate.code).map((code) => ({ code, discount_amount: 10 })) });
  const record = () => db.transaction((trx) => recordPaidOrder(trx, brand, { conversion, redeemed_codes: codes(advocate.code), claim_source: 'shopify' }));
  return { db, brandId, advocate, record };
}

describe('recordPaidOrder (platform orders)', () => {
  it('records the referral discount redemption as a claim linked to the conversion, once', async () => {
    const { db, brandId, record } = await paidOrder('premier', (code) => ['WELCOME5', code.toLowerCase()]);
    const first = await record();
    expect(first.claim_id).not.toBeNull();
    expect(first.result).toMatchObject({ attributed: true, duplicate: false });
    const claim = await db('claims').where({ brand_id: brandId, claim_id: first.claim_id }).first();
    expect(claim).toMatchObject({ status: 'converted', source: 'shopify', raw_value: '100.00', claim_value: '90.00', discount_applied: '10.00' });

    const again = await record();
    expect(again.result).toMatchObject({ attributed: true, duplicate: true });
    expect(again.claim_id).toBe(first.claim_id);
    expect(await db('claims').where({ brand_id: brandId })).toHaveLength(1);
  });

  it('records no claim below the Premier plan, but still the conversion by its code', async () => {
    const { db, brandId, record } = await paidOrder('growth', (code) => [code]);
    const { result, claim_id } = await record();
    expect(claim_id).toBeNull();
    expect(result.attributed).toBe(true);
    expect(await db('claims').where({ brand_id: brandId })).toHaveLength(0);
  });

  it('creates no claim when no redeemed code is a referral code', async () => {
    const { db, brandId, record } = await paidOrder('premier', () => ['SUMMER10']);
    const { result } = await record();
    expect(result.attributed).toBe(false);
    expect(await db('claims').where({ brand_id: brandId })).toHaveLength(0);
  });
});

import { getBrand } from '../../core/brands/brand';
import { inTransaction } from '../../core/db/transaction';
import { rewardBalance } from '../../core/ledger/reward-ledger';
import { markPaid, payoutCandidates } from '../../core/payouts/payouts';
import { approveDueRewards } from '../../core/rewards/reward-transitions';
import { type TestBrand, givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';

// The reward lifecycle (hold, approval, refunds during the hold, payouts) in currencies whose
// minor unit is not the cent: every amount stays whole at the brand's exponent.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

async function heldReward(brand: TestBrand, code: string, orderValue: number) {
  const orderId = uniqueOrderId();
  const response = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: `b-${orderId}@example.com`, order_id: orderId, order_value: orderValue, referral_code: code });
  expect(response.status).toBe(201);
  return orderId;
}

const ledger = (brandId: string) => t.db('reward_ledger').where({ brand_id: brandId }).orderBy('entry_id').select('kind', 'amount');
const endHolds = (brandId: string) => t.db('rewards').where({ brand_id: brandId }).update({ hold_until: t.db.raw(`now() - interval '1 second'`) });

describe('the reward lifecycle in a JPY brand (no decimals)', () => {
  it('holds 10 % of 1000 yen, reverses a third of it in whole yen during the hold, approves the rest and pays it out', async () => {
    const brand = await givenBrand(t.db, { currency: 'JPY', reward_type: 'percentage', reward_value: 10, fraud_velocity: false });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const orderId = await heldReward(brand, advocate.code, 1000);
    expect(await rewardBalance(t.db, brand.brandId, advocate.advocateId)).toMatchObject({ currency: 'JPY', pending: 100, approved: 0, balance: 0 });

    // 333 of 1000 yen refunded: 100 × 333 / 1000 = 33.3 → 33 yen leaves the held reward.
    const refunded = await t.http.post('/api/v1/track/refund').set(brand.headers).send({ order_id: orderId, refund_amount: 333, is_full_refund: false });
    expect(refunded.status).toBe(200);
    expect(refunded.body.data.reward_reversed).toBe(33);

    await endHolds(brand.brandId);
    await approveDueRewards(t.db);
    expect(await ledger(brand.brandId)).toEqual([
      { kind: 'hold', amount: '100' },
      { kind: 'hold_reversal', amount: '-33' },
      { kind: 'release', amount: '-67' },
      { kind: 'credit', amount: '67' },
    ]);
    expect(await rewardBalance(t.db, brand.brandId, advocate.advocateId)).toMatchObject({ currency: 'JPY', pending: 0, approved: 67, balance: 67, payable: 67 });

    const record = await getBrand(t.db, brand.brandId);
    const [line] = await payoutCandidates(t.db, record, 0);
    expect(line).toMatchObject({ advocate_id: advocate.advocateId, currency: 'JPY', amount: 67 });
    await expect(inTransaction(t.db, (trx) => markPaid(trx, record, [{ row: 2, payout_id: 'jp-1', advocate_id: advocate.advocateId, amount: 66.5 }], 'cli'))).rejects.toThrow(
      'row 2: amount: must be a whole number of JPY (no decimals)',
    );
    const paid = await inTransaction(t.db, (trx) => markPaid(trx, record, [{ row: 2, payout_id: 'jp-1', advocate_id: advocate.advocateId, amount: 67 }], 'cli'));
    expect(paid).toMatchObject({ recorded: 1, total_paid: 67, message: 'recorded 1 payout (67 JPY)' });
    expect(await rewardBalance(t.db, brand.brandId, advocate.advocateId)).toMatchObject({ paid: 67, approved: 0, payable: 0 });
  });
});

describe('the reward lifecycle in a KWD brand (three decimals)', () => {
  it('keeps the held reward, its refund share and the approved rest exact to the fils', async () => {
    const brand = await givenBrand(t.db, { currency: 'KWD', reward_type: 'percentage', reward_value: 10, fraud_velocity: false });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const orderId = await heldReward(brand, advocate.code, 12.345);
    // 10 % of 12.345 = 1.2345 → 1.235 (half up at the fils).
    expect(await rewardBalance(t.db, brand.brandId, advocate.advocateId)).toMatchObject({ currency: 'KWD', pending: 1.235 });

    // 4.115 of 12.345 refunded: 1.235 × 4.115 / 12.345 = 0.41167 → 0.412.
    const refunded = await t.http.post('/api/v1/track/refund').set(brand.headers).send({ order_id: orderId, refund_amount: 4.115, is_full_refund: false });
    expect(refunded.body.data.reward_reversed).toBe(0.412);

    await endHolds(brand.brandId);
    await approveDueRewards(t.db);
    expect(await rewardBalance(t.db, brand.brandId, advocate.advocateId)).toMatchObject({ currency: 'KWD', pending: 0, approved: 0.823, balance: 0.823 });
    expect(await t.db('rewards').where({ brand_id: brand.brandId }).first()).toMatchObject({ amount: '1.235', status: 'approved' });
  });
});

import { rewardBalance } from '../../core/ledger/reward-ledger';
import { runCli } from '../../server/cli/run-cli';
import { givenAdvocate } from '../helpers/fixtures';
import { type TestApp, startTestApp, testConfig } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

const cli = (...argv: string[]) => runCli(argv, { db: t.db, config: testConfig(), isTTY: false, progress: () => undefined, connectors: [] });
const json = async (...argv: string[]) => {
  const output = await cli(...argv, '--json');
  expect(output).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(output.stdout);
};

/** A brand made by the CLI, its advocate, and an order from a disposable address held for review. */
async function brandWithHeldOrder() {
  const created = await json('brand', 'create', '--name', 'Reviews', '--plan', 'growth', '--reward-type', 'fixed', '--reward-value', '7', '--reward-hold-days', '0');
  const headers = { 'X-API-Key': created.api_key, 'X-Brand-ID': created.brand_id };
  const advocate = await givenAdvocate(t.db, created.brand_id);
  const order = await t.http.post('/api/v1/track/conversion').set(headers).send({ email: 'z@mailinator.com', order_id: 'cli-1', order_value: 70, referral_code: advocate.code });
  return { brandId: created.brand_id as string, advocate, reviewId: order.body.data.review.review_id as number };
}

describe('referrals review', () => {
  it('lists the open reviews, approves one once (crediting the advocate) and refuses a second decision', async () => {
    const { brandId, advocate, reviewId } = await brandWithHeldOrder();
    const listed = await json('review', 'list', '--brand', brandId, '--status', 'open');
    expect(listed.reviews.map((review: { review_id: number }) => review.review_id)).toEqual([reviewId]);
    expect(listed.reviews[0]).toMatchObject({ reasons: [{ code: 'disposable_email' }], conversion: { order_id: 'cli-1', referrer_reward_paid: 7 } });

    const approved = await json('review', 'approve', '--brand', brandId, '--review', String(reviewId), '--by', 'lee', '--note', 'checked');
    expect(approved).toMatchObject({ reward_credited: 7, review: { status: 'approved', decided_by: 'lee', note: 'checked' } });
    expect((await rewardBalance(t.db, brandId, advocate.advocateId)).balance).toBe(7);

    const again = await cli('review', 'reject', '--brand', brandId, '--review', String(reviewId), '--reason', 'changed my mind');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`review ${reviewId} was already approved`);
    expect(await json('review', 'list', '--brand', brandId, '--status', 'open')).toEqual({ reviews: [], next_after: null });
  });

  it('rejects with a reason and never credits', async () => {
    const { brandId, advocate, reviewId } = await brandWithHeldOrder();
    const rejected = await json('review', 'reject', '--brand', brandId, '--review', String(reviewId), '--reason', 'fake account');
    expect(rejected).toMatchObject({ reward_credited: 0, review: { status: 'rejected', decided_by: 'cli', note: 'fake account' } });
    expect((await rewardBalance(t.db, brandId, advocate.advocateId)).balance).toBe(0);
  });

  it.each([
    [['review', 'reject', '--review', '1', '--reason', 'x'], '--brand is required'],
    [['review', 'approve', '--brand', '00000000-0000-4000-8000-000000000000'], '--review is required'],
    [['review', 'list', '--brand', '00000000-0000-4000-8000-000000000000', '--status', 'closed'], '--status must be one of open, approved, rejected'],
  ])('exits non-zero with a clear message for %j', async (argv, message) => {
    const output = await cli(...argv);
    expect(output.code).not.toBe(0);
    expect(output.stderr).toContain(message);
  });

  it('answers not found for a review of another brand', async () => {
    const { reviewId } = await brandWithHeldOrder();
    const other = await json('brand', 'create', '--name', 'Other', '--plan', 'growth');
    const output = await cli('review', 'approve', '--brand', other.brand_id, '--review', String(reviewId));
    expect(output.code).toBe(1);
    expect(output.stderr).toContain(`review ${reviewId} not found`);
  });
});

describe('referrals brand settings: fraud rules', () => {
  it('shows the rules on by default and switches each one', async () => {
    const created = await json('brand', 'create', '--name', 'Rules', '--plan', 'starter');
    expect(created.brand).toMatchObject({
      fraud_self_referral: true, fraud_velocity: true, fraud_disposable_email: true,
      fraud_max_per_advocate_hour: 10, fraud_max_per_ip_day: 5, fraud_ip_window_days: 7,
    });
    const changed = await json(
      'brand', 'settings', '--brand', created.brand_id, '--fraud-self-referral', 'no', '--fraud-velocity', 'no', '--fraud-disposable-email', 'no',
      '--fraud-max-per-advocate-hour', '3', '--fraud-max-per-ip-day', '0', '--fraud-ip-window-days', '30',
    );
    expect(changed.brand).toMatchObject({
      fraud_self_referral: false, fraud_velocity: false, fraud_disposable_email: false,
      fraud_max_per_advocate_hour: 3, fraud_max_per_ip_day: 0, fraud_ip_window_days: 30,
    });
  });

  it.each([
    [['--fraud-velocity', 'maybe'], '--fraud-velocity must be one of yes, no'],
    [['--fraud-max-per-ip-day', '-1'], '--fraud-max-per-ip-day must be a non-negative integer'],
    [['--fraud-ip-window-days', '0'], '--fraud-ip-window-days must be at least 1'],
  ])('refuses %j naming the flag', async (flags, message) => {
    const created = await json('brand', 'create', '--name', 'Bad', '--plan', 'starter');
    const output = await cli('brand', 'settings', '--brand', created.brand_id, ...flags);
    expect(output.code).toBe(2);
    expect(output.stderr).toContain(message);
  });
});

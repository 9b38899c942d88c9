import pino from 'pino';
import { startRewardApproval, loadRewardApprovalInterval } from '../../server/reward-approval-worker';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

describe('the server process approving rewards (REWARD_APPROVAL_INTERVAL_SECONDS)', () => {
  it('reads the interval: 60 s by default, 0 turns it off, anything else is refused naming the variable', () => {
    expect(loadRewardApprovalInterval({})).toBe(60);
    expect(loadRewardApprovalInterval({ REWARD_APPROVAL_INTERVAL_SECONDS: '0' })).toBe(0);
    expect(loadRewardApprovalInterval({ REWARD_APPROVAL_INTERVAL_SECONDS: '15' })).toBe(15);
    expect(() => loadRewardApprovalInterval({ REWARD_APPROVAL_INTERVAL_SECONDS: '1.5' })).toThrow(
      'REWARD_APPROVAL_INTERVAL_SECONDS must be a whole number of seconds (0 = off), got "1.5"',
    );
  });

  it('approves a reward whose hold ended, at start-up and on its interval, and stops after its pass', async () => {
    const brand = await givenBrand(t.db);
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const response = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'w@example.com', order_id: uniqueOrderId(), order_value: 100, referral_code: advocate.code });
    expect(response.status).toBe(201);
    await t.db('rewards').where({ brand_id: brand.brandId }).update({ hold_until: t.db.raw(`now() - interval '1 second'`) });

    const worker = startRewardApproval({ db: t.db, logger: pino({ level: 'silent' }) }, 1);
    let status = '';
    for (let attempt = 0; attempt < 50 && status !== 'approved'; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await t.db('rewards').where({ brand_id: brand.brandId }).first()).status;
    }
    await worker.stop();
    expect(status).toBe('approved');
    expect(await t.db('reward_ledger').where({ brand_id: brand.brandId, kind: 'credit' }).select('amount', 'actor', 'reason')).toEqual([
      { amount: '10.00', actor: 'system', reason: 'hold period ended' },
    ]);
  });
});

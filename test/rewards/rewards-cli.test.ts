import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../../server/cli/run-cli';
import { type TestBrand, givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { scratchDir } from '../helpers/scratch-space';
import { type TestApp, startTestApp, testConfig } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

const cli = (...argv: string[]) => runCli(argv, { db: t.db, config: testConfig(), isTTY: false, progress: () => undefined });
const json = async (...argv: string[]) => {
  const output = await cli(...argv, '--json');
  expect(output).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(output.stdout);
};

/** A converted order of 100 with a fixed reward of 10: its reward id. */
async function order(brand: TestBrand, code: string) {
  const response = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'buyer@example.com', order_id: uniqueOrderId(), order_value: 100, referral_code: code, currency: 'EUR' });
  expect(response.status).toBe(201);
  const reward = await t.db('rewards').where({ brand_id: brand.brandId, conversion_id: response.body.data.id }).first();
  return Number(reward.reward_id);
}

const writeFile = (name: string, text: string) => {
  const file = path.join(scratchDir('payouts'), name);
  fs.writeFileSync(file, text);
  return file;
};

describe('referrals brand: the hold and pending redemption settings', () => {
  it('holds rewards 30 days for a brand created without --reward-hold-days, and takes both flags at create and in settings', async () => {
    const plain = await json('brand', 'create', '--name', 'Plain', '--plan', 'growth');
    expect(plain.brand).toMatchObject({ reward_hold_days: 30, allow_pending_redemption: false });
    const quick = await json('brand', 'create', '--name', 'Quick', '--plan', 'growth', '--reward-hold-days', '0', '--allow-pending-redemption', 'yes');
    expect(quick.brand).toMatchObject({ reward_hold_days: 0, allow_pending_redemption: true });
    const changed = await json('brand', 'settings', '--brand', plain.brand_id, '--reward-hold-days', '14', '--allow-pending-redemption', 'yes');
    expect(changed.brand).toMatchObject({ reward_hold_days: 14, allow_pending_redemption: true });
  });

  it('refuses a hold that is not a whole number of days, naming the flag', async () => {
    for (const days of ['-1', '2.5', 'soon', '3651']) {
      const output = await cli('brand', 'create', '--name', 'Bad', '--plan', 'growth', `--reward-hold-days=${days}`);
      expect(output.code).toBe(2);
      expect(output.stderr).toContain('--reward-hold-days');
    }
  });
});

describe('referrals rewards', () => {
  it('lists, approves and voids rewards, recording "operator (CLI)" as who did it; the approval job runs as a command', async () => {
    const brand = await givenBrand(t.db, { currency: 'EUR' });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const first = await order(brand, advocate.code);
    const second = await order(brand, advocate.code);

    const pending = await json('rewards', 'list', '--brand', brand.brandId, '--status', 'pending', '--advocate', String(advocate.advocateId));
    expect(pending.rewards.map((reward: { reward_id: number }) => reward.reward_id)).toEqual([second, first]);

    const approved = await json('rewards', 'approve', '--brand', brand.brandId, '--reward', String(first));
    expect(approved.reward).toMatchObject({ reward_id: first, status: 'approved' });
    const voided = await json('rewards', 'void', '--brand', brand.brandId, '--reward', String(second), '--reason', 'duplicate order');
    expect(voided.reward).toMatchObject({ reward_id: second, status: 'voided', void_reason: 'duplicate order' });
    const entries = await t.db('reward_ledger').where({ brand_id: brand.brandId }).whereNot({ kind: 'hold' }).orderBy('entry_id').select('kind', 'actor', 'reason');
    expect(entries).toEqual([
      { kind: 'release', actor: 'operator (CLI)', reason: null },
      { kind: 'credit', actor: 'operator (CLI)', reason: null },
      { kind: 'hold_void', actor: 'operator (CLI)', reason: 'duplicate order' },
    ]);

    const due = await json('rewards', 'approve-due');
    expect(due).toEqual({ approved: expect.any(Number) });
    const balance = await json('advocate', 'balance', '--brand', brand.brandId, '--advocate', String(advocate.advocateId));
    expect(balance).toEqual({
      advocate_id: advocate.advocateId, currency: 'EUR', credited: 10, reversed: 0, redeemed: 0, balance: 10, pending: 0, approved: 10, paid: 0, issued: 0, voided: 10, payable: 10, owed: 0,
    });
  });

  it('refuses what a transition does not allow (exit 1, the reason), a missing reason or reward (exit 2), and another brand\'s reward (not found)', async () => {
    const brand = await givenBrand(t.db, { currency: 'EUR' });
    const other = await givenBrand(t.db, { currency: 'EUR' });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const reward = String(await order(brand, advocate.code));
    await json('rewards', 'void', '--brand', brand.brandId, '--reward', reward, '--reason', 'fraud');

    const again = await cli('rewards', 'void', '--brand', brand.brandId, '--reward', reward, '--reason', 'fraud');
    expect(again).toMatchObject({ code: 1, stderr: `error: reward ${reward} is already voided\n` });
    const approve = await cli('rewards', 'approve', '--brand', brand.brandId, '--reward', reward);
    expect(approve).toMatchObject({ code: 1, stderr: `error: reward ${reward} is voided and cannot be approved\n` });
    const noReason = await cli('rewards', 'void', '--brand', brand.brandId, '--reward', reward);
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toContain('--reason is required');
    const noReward = await cli('rewards', 'approve', '--brand', brand.brandId);
    expect(noReward.code).toBe(2);
    expect(noReward.stderr).toContain('--reward is required');
    const elsewhere = await cli('rewards', 'approve', '--brand', other.brandId, '--reward', reward);
    expect(elsewhere).toMatchObject({ code: 1, stderr: `error: reward ${reward} not found\n` });
    const badStatus = await cli('rewards', 'list', '--brand', brand.brandId, '--status', 'paid');
    expect(badStatus.code).toBe(2);
    expect(badStatus.stderr).toContain('--status must be one of in_review, pending, approved, voided');
  });
});

describe('referrals payouts', () => {
  /** Ann earns 30 (three orders), Bob 10 (one); both approved at once. */
  async function twoAdvocates() {
    const brand = await givenBrand(t.db, { reward_hold_days: 0, currency: 'EUR' });
    const ann = await givenAdvocate(t.db, brand.brandId, { email: `ann-${brand.brandId}@example.com`, code: `ANN-${brand.brandId.slice(0, 8)}` });
    const bob = await givenAdvocate(t.db, brand.brandId, { email: `bob-${brand.brandId}@example.com`, code: `BOB-${brand.brandId.slice(0, 8)}` });
    const annRewards = [await order(brand, ann.code), await order(brand, ann.code), await order(brand, ann.code)];
    await order(brand, bob.code);
    return { brand, ann, bob, annRewards };
  }

  it('exports approved unpaid balances of at least --min as CSV, and as JSON without --csv', async () => {
    const { brand, ann, bob } = await twoAdvocates();
    const annEntry = await t.db('reward_ledger').where({ brand_id: brand.brandId, advocate_id: ann.advocateId }).max('entry_id as last').first();
    const csv = await cli('payouts', 'export', '--brand', brand.brandId, '--min', '25.00', '--csv');
    expect(csv.code).toBe(0);
    expect(csv.stdout).toBe(
      'payout_id,advocate_id,email,code,currency,amount\r\n' + `P-${ann.advocateId}-${annEntry!.last},${ann.advocateId},${ann.email},${ann.code},EUR,30.00\r\n`,
    );
    const all = await json('payouts', 'export', '--brand', brand.brandId);
    expect(all.payouts.map((line: { advocate_id: number; amount: number }) => [line.advocate_id, line.amount])).toEqual([
      [ann.advocateId, 30],
      [bob.advocateId, 10],
    ]);
    expect(all).toMatchObject({ count: 2, total: 40 });
  });

  it('records a paid file once: the same file again changes nothing and says so', async () => {
    const { brand, ann, annRewards } = await twoAdvocates();
    const exported = await cli('payouts', 'export', '--brand', brand.brandId, '--min', '25', '--csv');
    const file = writeFile('paid.csv', exported.stdout);

    const paid = await json('payouts', 'mark-paid', '--brand', brand.brandId, '--file', file);
    expect(paid).toEqual({ recorded: 1, already_recorded: 0, total_paid: 30, message: 'recorded 1 payout (30.00 EUR)' });
    expect(await json('advocate', 'balance', '--brand', brand.brandId, '--advocate', String(ann.advocateId))).toMatchObject({
      credited: 30, approved: 0, paid: 30, balance: 0, payable: 0,
    });
    const again = await json('payouts', 'mark-paid', '--brand', brand.brandId, '--file', file);
    expect(again).toEqual({ recorded: 0, already_recorded: 1, total_paid: 0, message: 'nothing changed: the payout was already recorded' });
    expect(await t.db('reward_ledger').where({ brand_id: brand.brandId, kind: 'payout' })).toHaveLength(1);
    expect((await cli('payouts', 'export', '--brand', brand.brandId, '--csv')).stdout).not.toContain(`,${ann.email},`);

    // Paid rewards cannot be voided any more.
    const voided = await cli('rewards', 'void', '--brand', brand.brandId, '--reward', String(annRewards[0]), '--reason', 'late fraud flag');
    expect(voided).toMatchObject({ code: 1, stderr: `error: reward ${annRewards[0]} has been paid out and cannot be voided\n` });
  });

  it('refuses a file with a row paying more than the approved unpaid balance, naming the row, and records none of it', async () => {
    const { brand, ann, bob } = await twoAdvocates();
    const file = writeFile(
      'too-much.csv',
      `payout_id,advocate_id,amount\nA-1,${ann.advocateId},20.00\nB-1,${bob.advocateId},15.00\n`,
    );
    const refused = await cli('payouts', 'mark-paid', '--brand', brand.brandId, '--file', file);
    expect(refused).toMatchObject({
      code: 1,
      stderr: `error: row 3 (payout_id B-1): amount 15.00 exceeds advocate ${bob.advocateId}'s approved unpaid balance 10.00\n`,
    });
    expect(await t.db('reward_ledger').where({ brand_id: brand.brandId, kind: 'payout' })).toHaveLength(0);

    const malformed = writeFile('bad.csv', `payout_id,advocate_id,amount\nA-2,${ann.advocateId},1.234\n`);
    const bad = await cli('payouts', 'mark-paid', '--brand', brand.brandId, '--file', malformed);
    // Checked against the brand's currency (EUR: 2 decimals) when it is recorded: nothing is.
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('row 2: amount: must be a whole number of cents (at most 2 decimals)');
    const notANumber = await cli('payouts', 'mark-paid', '--brand', brand.brandId, '--file', writeFile('nan.csv', `payout_id,advocate_id,amount\nA-3,${ann.advocateId},ten\n`));
    expect(notANumber.code).toBe(2);
    expect(notANumber.stderr).toContain('row 2: amount must be a positive amount such as 25.00 (got "ten")');
    const missing = await cli('payouts', 'mark-paid', '--brand', brand.brandId, '--file', path.join(scratchDir('payouts'), 'nope.csv'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot be read: ENOENT');
  });

  it('pays in parts: a second payout of what is left, and refuses the same payout id for another amount', async () => {
    const { brand, ann } = await twoAdvocates();
    await json('payouts', 'mark-paid', '--brand', brand.brandId, '--file', writeFile('part1.csv', `payout_id,advocate_id,amount\nX-1,${ann.advocateId},12.50\n`));
    expect(await json('advocate', 'balance', '--brand', brand.brandId, '--advocate', String(ann.advocateId))).toMatchObject({ approved: 17.5, paid: 12.5, payable: 17.5 });
    const clash = await cli('payouts', 'mark-paid', '--brand', brand.brandId, '--file', writeFile('clash.csv', `payout_id,advocate_id,amount\nX-1,${ann.advocateId},17.50\n`));
    expect(clash).toMatchObject({ code: 1 });
    expect(clash.stderr).toContain(`row 2: payout_id X-1 was already recorded for advocate ${ann.advocateId}, amount 12.50`);
    const rest = await json('payouts', 'mark-paid', '--brand', brand.brandId, '--file', writeFile('part2.csv', `payout_id,advocate_id,amount\nX-2,${ann.advocateId},17.50\n`));
    expect(rest).toMatchObject({ recorded: 1, total_paid: 17.5 });
    expect(await json('advocate', 'balance', '--brand', brand.brandId, '--advocate', String(ann.advocateId))).toMatchObject({ approved: 0, paid: 30, payable: 0 });
    const paidAmounts = await t.db('rewards').where({ brand_id: brand.brandId, advocate_id: ann.advocateId }).orderBy('reward_id').pluck('paid_amount');
    expect(paidAmounts).toEqual(['10.00', '10.00', '10.00']);
  });
});

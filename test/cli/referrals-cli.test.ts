import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { runCli } from '../../server/cli/run-cli';
import { testConfig } from '../helpers/test-app';
import { testDatabase } from '../helpers/test-database';
import { BIN, NODE, migratedDataDir, removeScratch } from '../operations/processes';

const run = promisify(execFile);
const [node, ...nodeFlags] = NODE;

async function cli(...argv: string[]) {
  const db = await testDatabase();
  return runCli(argv, { db, config: testConfig(), isTTY: false, progress: () => undefined });
}

describe('referrals CLI (in process)', () => {
  it('creates a brand, keys and an advocate, and prints one JSON object with --json', async () => {
    const brand = await cli('brand', 'create', '--name', 'Acme', '--plan', 'growth', '--reward-type', 'percentage', '--reward-value', '10', '--json');
    expect(brand.code).toBe(0);
    const created = JSON.parse(brand.stdout);
    expect(created).toMatchObject({ brand_id: expect.any(String), api_key: expect.stringMatching(/^rk_/) });
    expect(created.brand).toMatchObject({ plan: 'growth', reward_type: 'percentage', reward_value: 10 });

    const key = JSON.parse((await cli('key', 'create', '--brand', created.brand_id, '--label', 'shopify', '--json')).stdout);
    const keys = JSON.parse((await cli('key', 'list', '--brand', created.brand_id, '--json')).stdout).keys;
    expect(keys).toHaveLength(2);
    expect(JSON.stringify(keys)).not.toContain(created.api_key);
    const revoked = JSON.parse((await cli('key', 'revoke', '--brand', created.brand_id, '--key', key.key_id, '--json')).stdout);
    expect(revoked.revoked_at).not.toBeNull();

    const advocate = JSON.parse((await cli('advocate', 'create', '--brand', created.brand_id, '--email', 'ann@example.com', '--first-name', 'Ann', '--json')).stdout);
    expect(advocate).toMatchObject({ advocate_id: expect.any(Number), referral_code: expect.stringMatching(/^ANN/) });
    const balance = JSON.parse((await cli('advocate', 'balance', '--brand', created.brand_id, '--advocate', String(advocate.advocate_id), '--json')).stdout);
    expect(balance).toEqual({
      advocate_id: advocate.advocate_id, currency: 'USD', credited: 0, reversed: 0, redeemed: 0, balance: 0, pending: 0, approved: 0, paid: 0, issued: 0, voided: 0, payable: 0, owed: 0,
    });
    const list = JSON.parse((await cli('advocate', 'list', '--brand', created.brand_id, '--json')).stdout);
    expect(list.advocates[0].referral_codes).toEqual([advocate.referral_code]);
  });

  it('maps an extra coupon code to an advocate and refuses one already in use', async () => {
    const { brand_id } = JSON.parse((await cli('brand', 'create', '--name', 'Coupons', '--plan', 'growth', '--json')).stdout);
    const { advocate_id } = JSON.parse((await cli('advocate', 'create', '--brand', brand_id, '--email', 'cc@example.com', '--first-name', 'Cc', '--json')).stdout);
    const added = await cli('advocate', 'add-code', '--brand', brand_id, '--advocate', String(advocate_id), '--code', 'SPRING-CC', '--kind', 'coupon', '--json');
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout).advocate.referral_codes).toContain('SPRING-CC');
    const taken = await cli('advocate', 'add-code', '--brand', brand_id, '--advocate', String(advocate_id), '--code', 'spring-cc');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('already in use');
  });

  it('changes brand settings: attribution model and window, referee discount, reward rule', async () => {
    const { brand_id } = JSON.parse((await cli('brand', 'create', '--name', 'Set', '--plan', 'starter', '--json')).stdout);
    const changed = await cli(
      'brand', 'settings', '--brand', brand_id, '--plan', 'premier', '--attribution-model', 'first_click', '--attribution-window-days', '14',
      '--referee-discount-type', 'percentage', '--referee-discount-value', '15', '--referee-min-purchase', '50', '--referee-discount-cap', '20',
      '--reward-type', 'fixed', '--reward-value', '5', '--json',
    );
    expect(changed.code).toBe(0);
    expect(JSON.parse(changed.stdout).brand).toMatchObject({
      plan: 'premier', attribution_model: 'first_click', attribution_window_days: 14, referee_discount_type: 'percentage',
      referee_discount_value: 15, referee_min_purchase: 50, referee_discount_cap: 20, reward_type: 'fixed', reward_value: 5,
    });
    const refused = await cli('brand', 'settings', '--brand', brand_id, '--referee-discount-type', 'percentage', '--referee-discount-value', '150');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('at most 100');
  });

  it.each([
    [['brand', 'create', '--plan', 'growth'], '--name is required'],
    [['brand', 'create', '--name', 'A', '--plan', 'gold'], '--plan must be one of starter, growth, premier'],
    [['brand', 'create', '--name', 'A', '--plan', 'growth', '--reward-value', 'ten'], '--reward-value must be a non-negative number'],
    [['advocate', 'create', '--brand', 'not-a-uuid', '--email', 'a@b.c', '--first-name', 'A'], '--brand must be a brand ID'],
    [['advocate', 'create', '--brand', '00000000-0000-4000-8000-000000000000', '--email', 'nope', '--first-name', 'A'], '--email must be an email address'],
    [['frobnicate'], 'unknown command'],
  ])('exits non-zero with a clear message for %j', async (argv, message) => {
    const output = await cli(...argv);
    expect(output.code).not.toBe(0);
    expect(output.stderr).toContain(message);
  });

  it('exits 1 naming the brand when it does not exist', async () => {
    const output = await cli('advocate', 'create', '--brand', '00000000-0000-4000-8000-000000000000', '--email', 'a@example.com', '--first-name', 'A');
    expect(output.code).toBe(1);
    expect(output.stderr).toContain('00000000-0000-4000-8000-000000000000 not found');
  });
});

describe('referrals CLI (the installed bin on an embedded data dir)', () => {
  afterAll(() => removeScratch());

  it('runs brand create and brand list as separate processes on one data dir', async () => {
    // A copy of the migrated template: a first start's database creation is test/e2e/quick-start.test.ts's (4-5 CPU-s of PGlite's initdb).
    const dataDir = await migratedDataDir();
    const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', NODE_OPTIONS: '' };
    const created = await run(node!, [...nodeFlags, BIN, 'brand', 'create', '--name', 'Bin Co', '--plan', 'starter', '--json'], { env });
    const brand = JSON.parse(created.stdout);
    const listed = await run(node!, [...nodeFlags, BIN, 'brand', 'list', '--json'], { env });
    expect(JSON.parse(listed.stdout).brands.map((b: { brand_id: string }) => b.brand_id)).toEqual([brand.brand_id]);
    await expect(run(node!, [...nodeFlags, BIN, 'brand', 'create', '--json'], { env })).rejects.toMatchObject({ code: 2 });
  });
});

import { randomUUID } from 'node:crypto';
import { runCli } from '../../server/cli/run-cli';
import { testConfig } from '../helpers/test-app';
import { testDatabase } from '../helpers/test-database';

async function cli(...argv: string[]) {
  const db = await testDatabase();
  return runCli(argv, { db, config: testConfig(), isTTY: false, progress: () => undefined });
}

describe('referrals brand create --currency', () => {
  it('creates a brand in the currency given (any case) and shows it in brand show and brand list', async () => {
    const created = await cli('brand', 'create', '--name', 'Tokyo Tea', '--plan', 'growth', '--currency', 'jpy', '--json');
    expect(created.code).toBe(0);
    const { brand_id: brandId, brand } = JSON.parse(created.stdout);
    expect(brand).toMatchObject({ name: 'Tokyo Tea', currency: 'JPY' });
    expect(JSON.parse((await cli('brand', 'show', '--brand', brandId, '--json')).stdout).brand).toMatchObject({ currency: 'JPY' });
    const listed = JSON.parse((await cli('brand', 'list', '--json')).stdout).brands;
    expect(listed.find((row: { brand_id: string }) => row.brand_id === brandId)).toMatchObject({ currency: 'JPY' });
  });

  it('defaults to USD', async () => {
    const created = JSON.parse((await cli('brand', 'create', '--name', 'Plain', '--plan', 'starter', '--json')).stdout);
    expect(created.brand.currency).toBe('USD');
  });

  it('refuses a code that is not ISO 4217 with a usage error naming --currency, creating nothing', async () => {
    const db = await testDatabase();
    // A name no other test uses: other files create brands in the same database meanwhile.
    const name = `Nowhere ${randomUUID()}`;
    const refused = await cli('brand', 'create', '--name', name, '--plan', 'growth', '--currency', 'ZZZ', '--json');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--currency must be an ISO 4217 code such as USD, EUR or JPY (got "ZZZ")');
    expect(await db('brands').where({ name })).toEqual([]);
  });
});

import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { createDatabase } from '../../core/db/create-database';
import { rewardBalance } from '../../core/ledger/reward-ledger';
import { migrations } from '../../migrations';
import { LOCAL_POSTGRES_URL } from '../helpers/real-postgres';

// The migration runs on PostgreSQL in production: a scratch database on the test server, migrated
// to just before the reward lifecycle, given data the old code wrote, then migrated on.
const serverUrl = process.env.TEST_DATABASE_URL ?? LOCAL_POSTGRES_URL;
let server: Knex;
let db: Knex;
let name: string;

beforeAll(async () => {
  server = createDatabase({ databaseUrl: serverUrl, poolMax: 1 });
  name = `referrals_migration_${randomBytes(4).toString('hex')}`;
  await server.raw(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  db = createDatabase({ databaseUrl: url.toString() });
  for (const [migration, steps] of migrations) {
    if (migration === '20261203_0012_reward_lifecycle') break;
    await steps.up(db);
  }
});

afterAll(async () => {
  await db?.destroy();
  await server?.raw(`DROP DATABASE IF EXISTS ${name}`);
  await server?.destroy();
});

describe('migration 20261203_0012_reward_lifecycle', () => {
  it('turns every existing credit into an approved reward, so old balances keep their meaning', async () => {
    const brandId = randomUUID();
    await db('brands').insert({ brand_id: brandId, name: 'Old', plan: 'growth' });
    const [{ advocate_id: advocateId }] = await db('advocates').insert({ brand_id: brandId, email: 'ann@example.com', email_normalized: 'ann@example.com', first_name: 'Ann' }).returning('advocate_id');
    const conversion = (orderId: string, reward: string) =>
      db('conversions')
        .insert({ brand_id: brandId, order_id: orderId, advocate_id: advocateId, email: 'b@example.com', email_normalized: 'b@example.com', order_value: '100.00', referrer_reward_paid: reward })
        .returning('conversion_id')
        .then(([row]) => Number(row.conversion_id));
    const first = await conversion('1', '10.00');
    const second = await conversion('2', '5.00');
    await conversion('3', '0.00'); // no reward, no credit
    await db('reward_ledger').insert([
      { brand_id: brandId, advocate_id: advocateId, conversion_id: first, kind: 'credit', amount: '10.00' },
      { brand_id: brandId, advocate_id: advocateId, conversion_id: first, kind: 'reversal', amount: '-4.00' },
      { brand_id: brandId, advocate_id: advocateId, conversion_id: second, kind: 'credit', amount: '5.00' },
    ]);

    const [, lifecycle] = migrations.find(([migration]) => migration === '20261203_0012_reward_lifecycle')!;
    await lifecycle.up(db);

    const rewards = await db('rewards').where({ brand_id: brandId }).orderBy('conversion_id').select('conversion_id', 'amount', 'status', 'paid_amount');
    expect(rewards).toEqual([
      { conversion_id: String(first), amount: '10.00', status: 'approved', paid_amount: '0.00' },
      { conversion_id: String(second), amount: '5.00', status: 'approved', paid_amount: '0.00' },
    ]);
    const linked = await db('reward_ledger').where({ brand_id: brandId }).whereNull('reward_id');
    expect(linked).toEqual([]);
    expect(await db('brands').where({ brand_id: brandId }).first()).toMatchObject({ reward_hold_days: 30, allow_pending_redemption: false });

    // Then the later migrations (currencies: the brand's becomes USD): the balance reads as before.
    const later = migrations.slice(migrations.findIndex(([migration]) => migration === '20261203_0012_reward_lifecycle') + 1);
    for (const [, steps] of later) await steps.up(db);
    expect(await rewardBalance(db, brandId, Number(advocateId))).toEqual({
      advocate_id: Number(advocateId), currency: 'USD', credited: 15, reversed: 4, redeemed: 0, balance: 11, pending: 0, approved: 11, paid: 0, issued: 0, voided: 0, payable: 11, owed: 0,
    });
  });
});

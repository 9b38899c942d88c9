import { randomUUID } from 'node:crypto';
import { migrations } from '../../migrations';
import { type RealPostgres, realPostgres } from '../helpers/real-postgres';

// On PostgreSQL, as in production: a scratch database of its own (the bounds are taken off and put
// back), given a row the old schema let through, then migrated again.
let pg: RealPostgres;
beforeAll(async () => {
  pg = await realPostgres({ ownDatabase: true });
});
afterAll(() => pg?.close());

const [, settingBounds] = migrations.find(([name]) => name === '20261219_0028_setting_bounds')!;

describe('migration 20261219_0028_setting_bounds', () => {
  it('clamps a brand stored beyond the bounds (2,147,483,647 hold days stopped every rewarded order), then refuses such a value with 23514; down takes the bounds off again', async () => {
    await settingBounds.down(pg.db);
    const brandId = randomUUID();
    const beyond = { reward_hold_days: 2147483647, attribution_window_days: 40000, fraud_ip_window_days: 3651, reengagement_days: 3650, fraud_max_per_advocate_hour: 10001, fraud_max_per_ip_day: null };
    await pg.db('brands').insert({ brand_id: brandId, name: 'Old', plan: 'growth', ...beyond });

    await settingBounds.up(pg.db);
    const columns = Object.keys(beyond);
    expect(await pg.db('brands').where({ brand_id: brandId }).first(columns)).toEqual({
      reward_hold_days: 3650, attribution_window_days: 3650, fraud_ip_window_days: 3650, reengagement_days: 3650, fraud_max_per_advocate_hour: 10000, fraud_max_per_ip_day: null,
    });
    for (const change of [{ reward_hold_days: 3651 }, { attribution_window_days: 0 }, { fraud_max_per_ip_day: 10001 }]) {
      const refused = await pg.db('brands').where({ brand_id: brandId }).update(change).catch((error: { code?: string; constraint?: string }) => error);
      expect([change, refused]).toEqual([change, expect.objectContaining({ code: '23514', constraint: `brands_${Object.keys(change)[0]}_check` })]);
    }

    await settingBounds.down(pg.db);
    await pg.db('brands').where({ brand_id: brandId }).update({ reward_hold_days: 5000 });
    await pg.db('brands').where({ brand_id: brandId }).update({ reward_hold_days: 30 });
    await settingBounds.up(pg.db);
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { customAdminApi } from '../connectors/shopify/admin-api';
import { syncDiscounts } from '../connectors/shopify/discount-worker';
import { createBrand } from '../core/brands/brand';
import { createDatabase } from '../core/db/create-database';
import { migrateToLatest } from '../core/db/migrate';
import { FakeShopify } from '../test/shopify/fake-shopify';
import { benchDatabaseUrl, recreateDatabase } from './bench-database';

/**
 * `npm run bench:shopify-codes`: BENCH_CODES advocates (default 10,000) of a brand linked to a shop
 * reach Shopify as redeem codes of the friend's-offer discount, through the sync worker's passes on
 * PostgreSQL and the fake Admin API (which validates each document, enforces the scope, computes
 * each call's cost as Shopify does, and finishes a bulk creation on its second poll). Reports codes
 * per second on our side (Shopify's own background work is not in it), the calls, and their cost.
 */
async function main(): Promise<void> {
  // The fake keeps its schema subset in a test run's folder (jest's globalSetup makes one): ours, here.
  process.env.REFERRALS_TEST_RUN_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), 'referrals-bench-run-'));
  const count = Number(process.env.BENCH_CODES ?? 10_000);
  const databaseUrl = benchDatabaseUrl();
  await recreateDatabase(databaseUrl);
  const db = createDatabase({ databaseUrl, poolMax: 4 });
  try {
    await migrateToLatest(db);
    const brand = await createBrand(db, { name: 'Bench shop', plan: 'premier', reward_type: 'fixed', reward_value: 5, referee_discount_type: 'percentage', referee_discount_value: 10 });
    const shop = 'bench-codes.myshopify.com';
    await db('shopify_shops').insert({ brand_id: brand.brand_id, shop_domain: shop, app_kind: 'custom', status: 'installed', scopes: 'read_orders,write_discounts' });
    await db.raw(
      `WITH made AS (
         INSERT INTO advocates (brand_id, email, email_normalized, first_name)
         SELECT ?, 'bench' || n || '@example.com', 'bench' || n || '@example.com', 'B' || n FROM generate_series(1, ?) AS n
         RETURNING advocate_id)
       INSERT INTO referral_codes (brand_id, code_normalized, code, advocate_id)
       SELECT ?, 'bench' || advocate_id, 'BENCH' || advocate_id, advocate_id FROM made`,
      [brand.brand_id, count, brand.brand_id],
    );
    await db.raw('ANALYZE');
    const fake = new FakeShopify();
    fake.install();
    fake.customTokens.set(shop, 'shpat_bench');
    fake.scopes.set(shop, ['read_orders', 'write_discounts']);
    fake.bulkPollsUntilDone = 2;
    const api = customAdminApi(shop, 'shpat_bench', 'bench-secret');
    const started = Date.now();
    let passes = 0;
    while ((await syncDiscounts(db, { apiFor: async () => api, sync: { pollMs: 50 } })) > 0) passes += 1;
    const seconds = (Date.now() - started) / 1000;
    const synced = Number((await db('shopify_discount_codes').where({ status: 'synced' }).count({ n: '*' }).first())!.n);
    const costs = fake.costs.filter((cost) => cost.shop === shop);
    const byOperation = new Map<string, number[]>();
    for (const cost of costs) byOperation.set(cost.operation ?? '?', [...(byOperation.get(cost.operation ?? '?') ?? []), cost.cost]);
    const idleStarted = Date.now();
    await syncDiscounts(db, { apiFor: async () => api });
    process.stdout.write(
      `${synced.toLocaleString('en-US')} of ${count.toLocaleString('en-US')} codes synced in ${seconds.toFixed(1)} s (${(synced / seconds).toFixed(0)} codes/s on our side), ${passes} passes; ` +
        `an idle pass afterwards ${Date.now() - idleStarted} ms, no call\n` +
        [...byOperation].map(([operation, list]) => `  ${operation}: ${list.length} calls, cost ${Math.min(...list)}–${Math.max(...list)} points each (limit 1,000 a query)`).join('\n') +
        '\n',
    );
  } finally {
    await db.destroy();
  }
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});

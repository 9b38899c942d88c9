import { createAdvocate } from '../core/advocates/advocates';
import { createApiKey } from '../core/brands/api-keys';
import { createBrand } from '../core/brands/brand';
import { type Database, createDatabase } from '../core/db/create-database';
import { migrateToLatest } from '../core/db/migrate';
import { inTransaction } from '../core/db/transaction';

export const BENCH_DATABASE_NAME = 'referrals_bench';
export const BENCH_KEY_SECRET = 'bench-key-encryption-secret';

/**
 * The database the bench owns and drops. BENCH_DATABASE_URL is taken as given; DATABASE_URL only
 * names the server, so a bench never drops the database an application runs on.
 */
export function benchDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BENCH_DATABASE_URL) return env.BENCH_DATABASE_URL;
  const url = new URL(env.DATABASE_URL || `postgres://postgres@127.0.0.1:5432/${BENCH_DATABASE_NAME}`);
  url.pathname = `/${BENCH_DATABASE_NAME}`;
  return url.toString();
}

/** Drops and creates the bench database through the server's `postgres` database. */
export async function recreateDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`bench database name "${name}" must be letters, digits and _`);
  url.pathname = '/postgres';
  const admin = createDatabase({ databaseUrl: url.toString(), poolMax: 1 });
  try {
    await admin.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.raw(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.destroy();
  }
}

export interface BenchTenant {
  brandId: string;
  apiKey: string;
  keyId: string;
  codes: string[];
}

/** One premier brand with a 10 % reward and `advocates` advocates, through the core use cases. */
export async function provisionTenant(db: Database, advocates: number): Promise<BenchTenant> {
  await migrateToLatest(db);
  return inTransaction(db, async (trx) => {
    // A load test is a burst per advocate: no velocity limit, or most orders would be held for review.
    // The rules still run (one signals query per order), so their cost is measured.
    const brand = await createBrand(trx, {
      name: 'Bench store', plan: 'premier', reward_type: 'percentage', reward_value: 10, fraud_max_per_advocate_hour: 0, fraud_max_per_ip_day: 0,
    });
    const key = await createApiKey(trx, brand.brand_id, BENCH_KEY_SECRET, 'bench');
    const codes: string[] = [];
    for (let index = 0; index < advocates; index += 1) {
      const advocate = await createAdvocate(trx, brand.brand_id, {
        email: `advocate${index}@bench.example`,
        first_name: 'Ada',
        code: `BENCH${index}`,
      });
      codes.push(advocate.referral_codes[0]!);
    }
    return { brandId: brand.brand_id, apiKey: key.api_key, keyId: key.key_id, codes };
  });
}

/**
 * Seeds in one transaction with triggers off (superuser): the seeded rows are dated in the past,
 * and no report has been stored yet that the dashboard's invalidation triggers would have to drop.
 */
async function seedWithoutTriggers(db: Database, seed: (trx: Database) => Promise<unknown>): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw('SET LOCAL session_replication_role = replica');
    await seed(trx as unknown as Database);
  });
}

/**
 * The SQL of two CTEs: `advocate_ids`, then `seeded`, which inserts `:count` completed conversions
 * of the brand (order ids `<prefix>-n`, spread over its advocates) and returns their
 * conversion_id, advocate_id and created_at. Amounts and the date are SQL expressions over `n`.
 */
function seededConversionsSql(prefix: string, orderValue: string, reward: string, createdAt: string): string {
  return `advocate_ids AS (
       SELECT array_agg(advocate_id ORDER BY advocate_id) AS ids FROM advocates WHERE brand_id = :brandId
     ), seeded AS (
       INSERT INTO conversions (brand_id, order_id, advocate_id, referral_code, email, email_normalized, status,
                                order_value, order_subtotal, referrer_reward_paid, source, created_at, updated_at)
       SELECT :brandId, '${prefix}-' || n, ids[1 + n % cardinality(ids)], 'BENCH' || (n % cardinality(ids)),
              '${prefix}' || n || '@bench.example', '${prefix}' || n || '@bench.example', 'completed',
              ${orderValue}, ${orderValue}, ${reward}, 'seed', ${createdAt}, now()
       FROM advocate_ids, generate_series(1, :count) AS n
       RETURNING conversion_id, advocate_id, created_at
     )`;
}

/**
 * `count` historical conversions (each with its reward credit, dated like its order) in one
 * INSERT … SELECT, spread over the tenant's advocates, dated over the past year, then analysed so
 * plans see the new size.
 */
export async function seedConversions(db: Database, brandId: string, count: number): Promise<void> {
  await seedWithoutTriggers(db, (trx) => trx.raw(
    `WITH ${seededConversionsSql('seed', '120.00', '12.00', "now() - (n % 365) * interval '1 day'")}
     INSERT INTO reward_ledger (brand_id, advocate_id, conversion_id, kind, amount, created_at)
     SELECT :brandId, advocate_id, conversion_id, 'credit', 12.00, created_at FROM seeded`,
    { brandId, count },
  ));
  await db.raw('VACUUM ANALYZE conversions');
  await db.raw('VACUUM ANALYZE reward_ledger');
  // The seed writes gigabytes of WAL: without a checkpoint here, the ones it sets off land in the
  // measurements that follow, whose first change to each page after them writes the whole page to
  // the WAL (the growth figure swung 0.83–2.28 with their timing).
  // CHECKPOINT needs a superuser or pg_checkpoint; without either the bench goes on as before.
  await db.raw('CHECKPOINT').catch(() => undefined);
}

/**
 * One product line per seeded conversion (40 products, every fourth without a SKU), for the
 * dashboard's revenue-by-product report; analysed like the conversions.
 */
export async function seedProductLines(db: Database, brandId: string): Promise<void> {
  await seedWithoutTriggers(db, (trx) => trx.raw(
    `INSERT INTO conversion_products (brand_id, conversion_id, line_no, name, quantity, price, line_total, sku)
     SELECT brand_id, conversion_id, 0, 'Product ' || (conversion_id % 40), 1, order_value, order_value,
            CASE WHEN conversion_id % 4 = 0 THEN NULL ELSE 'SKU-' || (conversion_id % 40) END
       FROM conversions WHERE brand_id = ? AND order_id LIKE 'seed-%'
     ON CONFLICT DO NOTHING`,
    [brandId],
  ));
  await db.raw('VACUUM ANALYZE conversion_products');
}

/**
 * `count` orders of today so far (UTC), three product lines each, as a busy store's day leaves
 * them (the ingest scenarios of `npm run bench` write some 50,000 before its dashboard step).
 */
export async function seedTodaysOrders(db: Database, brandId: string, count: number): Promise<void> {
  await seedWithoutTriggers(db, async (trx) => {
    await trx.raw(
      `WITH ${seededConversionsSql('today', '90.00', '9.00', "date_trunc('day', now()) + (now() - date_trunc('day', now())) * (n::float / :count)")}
       , lines AS (
         INSERT INTO conversion_products (brand_id, conversion_id, line_no, name, quantity, price, line_total, sku)
         SELECT :brandId, conversion_id, line, 'Product ' || ((conversion_id + line) % 40), 1, 30.00, 30.00, 'SKU-' || ((conversion_id + line) % 40)
           FROM seeded, generate_series(0, 2) AS line
       )
       INSERT INTO reward_ledger (brand_id, advocate_id, conversion_id, kind, amount, created_at)
       SELECT :brandId, advocate_id, conversion_id, 'credit', 9.00, created_at FROM seeded`,
      { brandId, count },
    );
  });
  await db.raw('VACUUM ANALYZE conversions');
  await db.raw('VACUUM ANALYZE conversion_products');
}

export async function countConversions(db: Database): Promise<number> {
  const row = await db('conversions').count({ total: '*' }).first();
  return Number(row?.total ?? 0);
}

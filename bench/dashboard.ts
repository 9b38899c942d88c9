import { countConversions, seedConversions, seedProductLines, seedTodaysOrders } from './bench-database';
import { setUpBench } from './bench-setup';
import { renderPageTimings, timeDashboardPages } from './dashboard-pages';

// `npm run bench:dashboard`: the dashboard scenario of `npm run bench` alone (~2½ minutes): a fresh
// bench database, 1,000,000 conversions seeded as `npm run bench` seeds them, plus 50,000 orders of
// today so far (BENCH_TODAY_ORDERS), each page timed.
const SEED_ROWS = Number(process.env.BENCH_SEED_ROWS ?? 1_000_000);
/** Orders of today so far, on top of the seed: a busy day (0 to leave today as the seed made it). */
const TODAY_ORDERS = Number(process.env.BENCH_TODAY_ORDERS ?? 50_000);
const progress = (message: string) => process.stderr.write(`[bench:dashboard] ${message}\n`);

async function main(): Promise<void> {
  const setup = await setUpBench(1000, progress);
  try {
    progress(`seeding ${SEED_ROWS} conversions and their product lines by SQL`);
    const started = Date.now();
    await seedConversions(setup.db, setup.tenant.brandId, SEED_ROWS);
    await seedProductLines(setup.db, setup.tenant.brandId);
    if (TODAY_ORDERS > 0) await seedTodaysOrders(setup.db, setup.tenant.brandId, TODAY_ORDERS);
    progress(`  seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    const timings = await timeDashboardPages(setup.server.url, setup.db, setup.tenant.brandId);
    const worst = Math.max(...timings.map((t) => t.p95));
    process.stdout.write(`${renderPageTimings(timings)}\n\n${await countConversions(setup.db)} conversions; slowest page p95 ${worst.toFixed(1)} ms (goal ≤ 200)\n`);
    process.stdout.write(`${JSON.stringify({ dashboard_pages: timings })}\n`);
  } finally {
    await setup.close();
  }
}

main().catch((error) => {
  process.stderr.write(`bench:dashboard failed: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});

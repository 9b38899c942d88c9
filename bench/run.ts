import os from 'node:os';
import { countConversions, seedConversions } from './bench-database';
import { setUpBench, warmUp } from './bench-setup';
import { type Scenario, type ScenarioResult, runScenario } from './load-scenario';
import { findPgbench, prepareReference, runReference } from './pgbench-reference';
import { type BenchReport, type Target, renderJson, renderTable } from './report';
import { eligibilityCheck, newConversion, partialRefund, replayConversion } from './request-bodies';
import { routeExists } from './route-probe';
import { inboxOutcomes, shopifyOrdersPaid, waitForInbox } from './shopify-orders-paid';

// `npm run bench`: the whole run stays under 5 minutes on a laptop; BENCH_SECONDS trades time for noise.
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SEED_ROWS = Number(process.env.BENCH_SEED_ROWS ?? 1_000_000);
const ADVOCATES = 1000;
const CONCURRENCY = [1, 16, 64] as const;
const INBOX_WAIT_SECONDS = 30;

const CONVERSION = '/api/v1/track/conversion';
const REFUND = '/api/v1/track/refund';
const ELIGIBILITY = '/api/v1/track/check-eligibility';

const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);

async function main(): Promise<void> {
  const started = Date.now();
  const setup = await setUpBench(ADVOCATES, progress);
  const { db, tenant, server, backends, databaseUrl } = setup;
  const databaseName = new URL(databaseUrl).pathname.slice(1);
  const postgres = ((await db.raw('SHOW server_version')).rows[0].server_version as string).split(' ')[0];
  const scenario = (
    name: string,
    path: string,
    connections: number,
    expectedStatus: number,
    nextRequest: Scenario['nextRequest'],
    seconds = SECONDS,
    headers?: Record<string, string>,
  ): Scenario => setup.scenario(name, path, connections, expectedStatus, nextRequest, seconds, headers);

  const results: BenchReport['scenarios'] = [];
  const skipped: BenchReport['skipped'] = [];
  const notes: string[] = [];
  const measure = async (planned: Scenario): Promise<ScenarioResult> => {
    const rowsBefore = await countConversions(db);
    progress(`${planned.name} at ${planned.connections} connections for ${planned.durationSeconds} s`);
    const result = await runScenario(server, planned, backends);
    const { succeeded: _succeeded, ...row } = result;
    results.push({ ...row, rows_before: rowsBefore });
    progress(`  ${result.throughput.toFixed(0)} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, ${result.errors} errors`);
    return result;
  };

  let report: BenchReport | undefined;
  try {
    const codes = tenant.codes;
    progress('warm-up');
    const warmedUp = await warmUp(setup, () => runScenario(server, scenario('warm-up', CONVERSION, 16, 201, newConversion(codes), 3)));
    const ingest = new Map<number, ScenarioResult>();
    for (const connections of [16, 1, 64]) {
      ingest.set(connections, await measure(scenario('conversion ingest', CONVERSION, connections, 201, newConversion(codes))));
    }
    const written = [warmedUp, ...ingest.values()].flatMap((result) => result.succeeded);
    const replay = await measure(scenario('duplicate replay', CONVERSION, 64, 200, replayConversion(codes, ingest.get(64)!.succeeded)));
    await measure(scenario('refund ingest', REFUND, 16, 200, partialRefund(written)));

    if (await routeExists(server.url, ELIGIBILITY)) {
      await measure(scenario('check-eligibility', ELIGIBILITY, 16, 200, eligibilityCheck(codes, written)));
    } else {
      skipped.push({ name: 'check-eligibility', reason: 'route not present' });
    }

    progress(`seeding ${SEED_ROWS} conversions by SQL`);
    const seedStarted = Date.now();
    await seedConversions(db, tenant.brandId, SEED_ROWS);
    progress(`  seeded in ${((Date.now() - seedStarted) / 1000).toFixed(0)} s`);
    const grown = new Map<number, ScenarioResult>();
    for (const connections of [16, 1]) {
      grown.set(connections, await measure(scenario('conversion ingest (grown)', CONVERSION, connections, 201, newConversion(codes))));
    }
    await measure(scenario('refund ingest (grown)', REFUND, 16, 200, partialRefund(written)));

    // Last against the server: its inbox worker keeps recording orders after the run.
    const shopify = await shopifyOrdersPaid(server.url, db, tenant);
    if (shopify.ready) {
      const acknowledged = await measure(scenario('shopify orders/paid ack', shopify.path, 16, shopify.expectedStatus, shopify.nextRequest, SECONDS, {}));
      // The acknowledgement is what Shopify waits for; the inbox worker records the orders after it.
      const drained = await waitForInbox(db, tenant.brandId, INBOX_WAIT_SECONDS * 1000);
      const outcomes = await inboxOutcomes(db, tenant.brandId);
      notes.push(
        `shopify: ${acknowledged.requests} deliveries acknowledged; ${drained.toFixed(0)} s later the inbox held ${JSON.stringify(outcomes)}`,
      );
    } else {
      skipped.push({ name: 'shopify orders/paid', reason: shopify.reason });
    }

    await server.stop();

    const reference = [];
    const pgbench = findPgbench();
    if (pgbench) {
      await prepareReference(db, ADVOCATES);
      for (const connections of CONCURRENCY) {
        progress(`pgbench reference at ${connections} connections`);
        reference.push(await runReference(pgbench, databaseUrl, connections, SECONDS, ADVOCATES));
      }
    } else {
      skipped.push({ name: 'pgbench reference', reason: 'pgbench not found (set PGBENCH)' });
    }

    const small = ingest.get(16)!;
    const small64 = ingest.get(64)!;
    const reference64 = reference.find((r) => r.connections === 64);
    // Growth is judged on one connection, where p50 is the cost of a request and not a queue.
    const p50Ratio = grown.get(1)!.p50 / ingest.get(1)!.p50;
    const targets: Target[] = [
      { name: 'conversions/s at 64 ÷ pgbench TPS at 64', value: reference64 ? small64.throughput / reference64.tps : NaN, goal: '≥ 0.5', met: !!reference64 && small64.throughput / reference64.tps >= 0.5 },
      { name: 'conversion p99 at 16 connections (ms)', value: small.p99, goal: '≤ 25', met: small.p99 <= 25 },
      { name: `conversion p50 at ${SEED_ROWS} rows ÷ at ~0 (1 conn)`, value: p50Ratio, goal: '≤ 1.2', met: p50Ratio <= 1.2 },
      { name: 'duplicate replay ÷ first-write throughput (64)', value: replay.throughput / small64.throughput, goal: '≥ 2', met: replay.throughput / small64.throughput >= 2 },
      { name: 'errors in all scenarios', value: results.reduce((sum, s) => sum + s.errors, 0), goal: '0', met: results.every((s) => s.errors === 0) },
    ];
    report = {
      started_at: new Date(started).toISOString(),
      environment: { cpus: os.cpus().length, node: process.version, postgres: `PostgreSQL ${postgres}`, database: databaseName, seconds_per_scenario: SECONDS },
      scenarios: results,
      skipped,
      notes,
      reference,
      growth: {
        rows_small: results.find((s) => s.name === 'conversion ingest' && s.connections === 1)!.rows_before,
        rows_large: results.find((s) => s.name === 'conversion ingest (grown)' && s.connections === 1)!.rows_before,
        p50_ratio: p50Ratio,
        p50_ratio_16: grown.get(16)!.p50 / small.p50,
        throughput_ratio: grown.get(1)!.throughput / ingest.get(1)!.throughput,
        throughput_ratio_16: grown.get(16)!.throughput / small.throughput,
      },
      targets,
      total_seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await setup.close();
  }
  process.stdout.write(`${renderTable(report)}\n\n${renderJson(report)}\n`);
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});

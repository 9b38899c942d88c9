import { runScenario } from './load-scenario';
import { findPgbench, prepareReference, runReference } from './pgbench-reference';
import { newClaim, newConversion, partialRefund, replayConversion } from './request-bodies';
import { setUpBench, warmUp } from './bench-setup';

/**
 * `npx tsx bench/compare-conversions.ts [label]`: the conversion hot path alone, once per mode of
 * BENCH_MODES (default `unbatched,batched`: CONVERSION_BATCH_MAX=1, then the server's default),
 * back to back, each on a fresh database: ingest at 1, 16 and 64 connections with one hot advocate
 * and with 1,000 advocates, then a duplicate replay at 16, refunds of those orders and new claims
 * at 16 and 64 (the same batching settings apply to them) — BENCH_SECONDS (default 8) each — one
 * line per scenario, then pgbench's reference at 64 clients for the ratio the issue asks about.
 */
const CONVERSION = '/api/v1/track/conversion';
const REFUND = '/api/v1/track/refund';
const CLAIM = '/api/v1/track/claim';
const MODES: Record<string, Record<string, string>> = {
  unbatched: { CONVERSION_BATCH_MAX: '1' },
  batched: {},
};

async function measure(label: string, mode: string, seconds: number): Promise<void> {
  Object.assign(process.env, { CONVERSION_BATCH_MAX: '', ...MODES[mode] }); // the server inherits it
  if (process.env.CONVERSION_BATCH_MAX === '') delete process.env.CONVERSION_BATCH_MAX;
  const setup = await setUpBench(1000, () => undefined);
  try {
    const { scenario, server, backends, tenant } = setup;
    await warmUp(setup, () => runScenario(server, scenario('warm-up', CONVERSION, 16, 201, newConversion(tenant.codes), 3)));
    const line = (name: string, r: Awaited<ReturnType<typeof runScenario>>) =>
      `${label} ${mode} ${name}: ${r.throughput.toFixed(0)} req/s p50 ${r.p50.toFixed(1)} p99 ${r.p99.toFixed(1)} ms; ` +
      `CPU ms/req server ${r.serverCpuMsPerRequest.toFixed(2)} db ${r.databaseCpuMsPerRequest.toFixed(2)}; errors ${r.errors}`;
    let written: string[] = [];
    for (const [advocates, codes] of [['hot', tenant.codes.slice(0, 1)], ['1000', tenant.codes]] as const) {
      for (const connections of [1, 16, 64]) {
        const result = await runScenario(server, scenario('ingest', CONVERSION, connections, 201, newConversion(codes), seconds), backends);
        if (connections === 16) written = result.succeeded;
        process.stdout.write(`${line(`ingest ${advocates} c${connections}`, result)}\n`);
      }
    }
    const replay = await runScenario(server, scenario('replay', CONVERSION, 16, 200, replayConversion(tenant.codes, written), seconds), backends);
    process.stdout.write(`${line('replay c16', replay)}\n`);
    for (const connections of [16, 64]) {
      const refunds = await runScenario(server, scenario('refund', REFUND, connections, 200, partialRefund(written), seconds), backends);
      process.stdout.write(`${line(`refund c${connections}`, refunds)}\n`);
      const claims = await runScenario(server, scenario('claim', CLAIM, connections, 201, newClaim(tenant.codes), seconds), backends);
      process.stdout.write(`${line(`claim c${connections}`, claims)}\n`);
    }
    process.stdout.write(`${label} ${mode} server peak RSS ${server.memory().peakMiB.toFixed(0)} MiB\n`);
  } finally {
    await setup.close();
  }
}

async function main(): Promise<void> {
  const label = process.argv[2] ?? 'run';
  const seconds = Number(process.env.BENCH_SECONDS ?? 8);
  const modes = (process.env.BENCH_MODES ?? 'unbatched,batched').split(',');
  for (const mode of modes) {
    if (!MODES[mode]) throw new Error(`unknown mode ${mode}; BENCH_MODES takes ${Object.keys(MODES).join(', ')}`);
    await measure(label, mode, seconds);
  }
  const pgbench = findPgbench();
  if (!pgbench) return void process.stdout.write(`${label} pgbench reference: skipped, pgbench not found\n`);
  const setup = await setUpBench(1, () => undefined);
  try {
    await setup.server.stop();
    await prepareReference(setup.db, 1000);
    const reference = await runReference(pgbench, setup.databaseUrl, 64, seconds, 1000);
    process.stdout.write(`${label} pgbench reference c64: ${reference.tps.toFixed(0)} TPS\n`);
  } finally {
    await setup.db.destroy();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});

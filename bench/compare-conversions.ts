import { runScenario } from './load-scenario';
import { newConversion, replayConversion } from './request-bodies';
import { setUpBench, warmUp } from './bench-setup';

/**
 * `npx tsx bench/compare-conversions.ts [label]`: the conversion hot path alone — ingest at 1 and
 * 16 connections, then a duplicate replay at 16, BENCH_SECONDS (default 8) each — one line per
 * scenario. Run it alternately on two working trees to compare a change on a noisy machine.
 */
const CONVERSION = '/api/v1/track/conversion';

async function main(): Promise<void> {
  const label = process.argv[2] ?? 'run';
  const seconds = Number(process.env.BENCH_SECONDS ?? 8);
  const setup = await setUpBench(1000, () => undefined);
  try {
    const { scenario, server, backends, tenant } = setup;
    await warmUp(setup, () => runScenario(server, scenario('warm-up', CONVERSION, 16, 201, newConversion(tenant.codes), 3)));
    const line = (name: string, r: Awaited<ReturnType<typeof runScenario>>) =>
      `${label} ${name}: ${r.throughput.toFixed(0)} req/s p50 ${r.p50.toFixed(1)} p99 ${r.p99.toFixed(1)} ms; ` +
      `CPU ms/req server ${r.serverCpuMsPerRequest.toFixed(2)} db ${r.databaseCpuMsPerRequest.toFixed(2)}; errors ${r.errors}`;
    let written: string[] = [];
    for (const connections of [1, 16]) {
      const result = await runScenario(server, scenario('ingest', CONVERSION, connections, 201, newConversion(tenant.codes), seconds), backends);
      written = result.succeeded;
      process.stdout.write(`${line(`ingest c${connections}`, result)}\n`);
    }
    const replay = await runScenario(server, scenario('replay', CONVERSION, 16, 200, replayConversion(tenant.codes, written), seconds), backends);
    process.stdout.write(`${line('replay c16', replay)}\n`);
  } finally {
    await setup.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});

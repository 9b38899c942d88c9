import { setUpBench, warmUp } from './bench-setup';
import { emailsOnAndOff } from './emails-on-off';
import { runScenario } from './load-scenario';
import { newConversion } from './request-bodies';

/**
 * `npm run bench:emails`: the program emails' part of `npm run bench` alone — conversion ingest at
 * 64 connections with the reward emails off, on, on, off, mail sent through a real SMTP exchange
 * (BENCH_SECONDS each, default 10).
 */
async function main(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const setup = await setUpBench(1000, (message) => process.stderr.write(`[bench] ${message}\n`));
  try {
    const { server, backends, tenant } = setup;
    await warmUp(setup, () => runScenario(server, setup.scenario('warm-up', '/api/v1/track/conversion', 16, 201, newConversion(tenant.codes), 3)));
    const emails = await emailsOnAndOff(
      setup,
      async (planned) => {
        const result = await runScenario(server, planned, backends);
        process.stdout.write(`${planned.name}: ${result.throughput.toFixed(0)} req/s p50 ${result.p50.toFixed(1)} p99 ${result.p99.toFixed(1)} ms; CPU ms/req server ${result.serverCpuMsPerRequest.toFixed(2)} db ${result.databaseCpuMsPerRequest.toFixed(2)}; errors ${result.errors}\n`);
        return result;
      },
      seconds,
    );
    process.stdout.write(`reward emails on ÷ off = ${(emails.on / emails.off).toFixed(3)} (${emails.on.toFixed(0)} ÷ ${emails.off.toFixed(0)} req/s); ${emails.sent} sent; outbox empty ≤ ${emails.drainSeconds.toFixed(1)} s after a run\n`);
  } finally {
    await setup.close();
  }
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});

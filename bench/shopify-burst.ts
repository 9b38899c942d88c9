import { setUpBench } from './bench-setup';
import { runScenario } from './load-scenario';
import { recordBurst, shopifyOrdersPaid } from './shopify-orders-paid';

/**
 * `npx tsx bench/shopify-burst.ts`: only the Shopify burst of `npm run bench`, on a fresh bench
 * database — BENCH_SHOPIFY_BURST signed orders/paid deliveries (default 10,000) at 16 connections,
 * then the wait until the inbox recorded them all. One line: acknowledgement rate, p50 and p99,
 * seconds until recorded, the server's CPU per delivery, and the inbox's outcomes.
 */
const BURST = Number(process.env.BENCH_SHOPIFY_BURST ?? 10_000);

async function main(): Promise<void> {
  const setup = await setUpBench(1000, (message) => process.stderr.write(`[burst] ${message}\n`));
  try {
    const { db, server, tenant, backends } = setup;
    const shopify = await shopifyOrdersPaid(server.url, db, tenant);
    if (!shopify.ready) throw new Error(`the Shopify route is not there: ${shopify.reason}`);
    const cpuBefore = server.cpuSeconds();
    const planned = { ...setup.scenario('burst', shopify.path, 16, shopify.expectedStatus, shopify.nextRequest, 10, {}), amount: BURST };
    const burst = await recordBurst((scenario) => runScenario(server, scenario, backends), planned, db, tenant.brandId, 300_000);
    const cpuMs = ((server.cpuSeconds() - cpuBefore) * 1000) / BURST;
    const { acknowledged: ack } = burst;
    process.stdout.write(
      `burst of ${BURST}: ack ${ack.throughput.toFixed(0)} req/s p50 ${ack.p50.toFixed(1)} p99 ${ack.p99.toFixed(1)} ms, ${ack.errors} errors; ` +
        `recorded in ${burst.recordedSeconds.toFixed(1)} s; server CPU ${cpuMs.toFixed(2)} ms/delivery; ${JSON.stringify(burst.outcomes)}\n`,
    );
  } finally {
    await setup.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});

import fs from 'node:fs';
import autocannon from 'autocannon';

/**
 * The load generator of the independent shape, in its own process (its CPU is not the server's or
 * the harness's): one run of autocannon described by LOAD_PLAN (JSON), its result written to the
 * plan's `resultFile`. Conversions as a store's backend sends them: a new order (or a replayed
 * one), a different X-Forwarded-For on every request.
 */
export interface LoadPlan {
  url: string;
  path: string;
  headers: Record<string, string>;
  connections: number;
  durationSeconds: number;
  /** `conversion`: new orders with `referralCode` (to our service or the Express comparator); `replay`: the orders in `replayFile` again. */
  kind: 'conversion' | 'replay';
  referralCode: string;
  /** Makes this run's order ids unique. */
  orderPrefix: string;
  /** One order id per line (a replay). */
  replayFile?: string;
  /** Where the acknowledged order ids go, one per line. */
  acknowledgedFile?: string;
  resultFile: string;
  expectedStatus: number[];
}

export interface LoadResult {
  seconds: number;
  requests: number;
  acknowledged: number;
  throughput: number;
  p50: number;
  p99: number;
  errors: number;
  statuses: Record<string, number>;
  /** CPU of this process (the load generator), in % of one core. */
  cpuPercent: number;
}

/** 65,000 addresses, one per request in turn, as many shoppers' IPs behind a proxy. */
const ADDRESSES = 65_000;
const forwardedFor = (n: number) => {
  const index = n % ADDRESSES;
  return `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${(index & 255) || 1}`;
};

/** A store's order: three product lines adding up to 89.96. */
export function conversionBody(orderId: string, referralCode: string): string {
  return JSON.stringify({
    customer_email: `shopper.${orderId}@example.com`,
    order_id: orderId,
    order_value: 89.96,
    referral_code: referralCode,
    products: [
      { name: 'Trail shoe', quantity: 1, price: 59.99, sku: 'TS-42' },
      { name: 'Wool socks', quantity: 2, price: 9.99, sku: 'WS-3P' },
      { name: 'Shoe care kit', quantity: 1, price: 9.99, sku: 'SC-01' },
    ],
  });
}

function percentile(sorted: Float64Array, fraction: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

async function run(plan: LoadPlan): Promise<LoadResult> {
  const replay = plan.replayFile ? fs.readFileSync(plan.replayFile, 'utf8').split('\n').filter(Boolean) : [];
  if (plan.kind === 'replay' && replay.length === 0) throw new Error('a replay needs acknowledged orders');
  let sent = 0;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const acknowledged: string[] = [];
  const expected = new Set(plan.expectedStatus);
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: plan.url,
        connections: plan.connections,
        duration: plan.durationSeconds,
        timeout: 30,
        requests: [
          {
            method: 'POST',
            path: plan.path,
            setupRequest: (request, context) => {
              const n = sent++;
              const orderId = plan.kind === 'replay' ? replay[n % replay.length]! : `${plan.orderPrefix}-${n}`;
              (context as { orderId?: string }).orderId = orderId;
              return {
                ...request,
                headers: { ...plan.headers, 'content-type': 'application/json', 'x-forwarded-proto': 'https', 'x-forwarded-for': forwardedFor(n) },
                body: conversionBody(orderId, plan.referralCode),
              };
            },
            onResponse: (status, _body, context) => {
              if (expected.has(status)) acknowledged.push((context as { orderId: string }).orderId);
            },
          },
        ],
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      latencies.push(ms);
      statuses[status] = (statuses[status] ?? 0) + 1;
    });
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  if (plan.acknowledgedFile) fs.writeFileSync(plan.acknowledgedFile, acknowledged.join('\n'));
  const sorted = Float64Array.from(latencies).sort();
  return {
    seconds: result.duration,
    requests: latencies.length,
    acknowledged: acknowledged.length,
    throughput: acknowledged.length / result.duration,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    errors: latencies.length - acknowledged.length + result.errors,
    statuses,
    cpuPercent: ((cpu.user + cpu.system) / 1e6 / seconds) * 100,
  };
}

if (require.main === module) {
  const plan = JSON.parse(process.env.LOAD_PLAN ?? '') as LoadPlan;
  run(plan).then(
    (result) => fs.writeFileSync(plan.resultFile, JSON.stringify(result)),
    (error) => {
      process.stderr.write(`load generator failed: ${(error as Error).stack ?? error}\n`);
      process.exit(1);
    },
  );
}

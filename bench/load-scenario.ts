import autocannon from 'autocannon';
import { cpuSecondsOfAll, cpuSecondsSince } from './process-cpu';
import type { ServerProcess } from './server-process';

/** One request of a scenario: a fresh body each time; `key` is remembered when it succeeds. */
export interface ScenarioRequest {
  body: string;
  key?: string;
  /** Headers of this request only (e.g. a signature over its body). */
  headers?: Record<string, string>;
  /** Another route than the scenario's (a mixed scenario). */
  path?: string;
}

export interface Scenario {
  name: string;
  path: string;
  connections: number;
  durationSeconds: number;
  /** A fixed number of requests instead of a duration (a burst). */
  amount?: number;
  headers: Record<string, string>;
  /** The status every response should have (a mixed scenario: one of them); any other counts as an error. */
  expectedStatus: number | readonly number[];
  nextRequest(): ScenarioRequest;
}

export interface ScenarioResult {
  name: string;
  connections: number;
  seconds: number;
  requests: number;
  /** Responses with the expected status per second. */
  throughput: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
  statuses: Record<string, number>;
  rssMiB: number;
  peakRssMiB: number;
  /** CPU use over the run in % of one core: the server, the PostgreSQL backends of the bench database, autocannon. */
  serverCpuPercent: number;
  databaseCpuPercent: number;
  loadGeneratorCpuPercent: number;
  /** CPU milliseconds per response: what a request costs, steadier than req/s on a shared machine. */
  serverCpuMsPerRequest: number;
  databaseCpuMsPerRequest: number;
  /** The keys of the requests that got the expected status (e.g. order ids written). */
  succeeded: string[];
}

function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

/** Runs one scenario with autocannon against the server and measures it exactly (every latency kept). */
export async function runScenario(
  server: ServerProcess,
  scenario: Scenario,
  databaseBackends: () => Promise<number[]> = async () => [],
): Promise<ScenarioResult> {
  const expected = new Set<number>([scenario.expectedStatus].flat());
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const succeeded: string[] = [];
  const backendsBefore = cpuSecondsOfAll(await databaseBackends());
  const loadBefore = process.cpuUsage();
  const cpuBefore = server.cpuSeconds();
  const started = process.hrtime.bigint();

  let finish: (error: Error | null, result: autocannon.Result) => void = () => undefined;
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    finish = (error, result) => (error ? reject(error) : resolve(result));
  });
  const instance = autocannon({
    url: server.url,
    connections: scenario.connections,
    ...(scenario.amount ? { amount: scenario.amount } : { duration: scenario.durationSeconds }),
    timeout: 30,
    requests: [
      {
        method: 'POST',
        path: scenario.path,
        headers: { 'content-type': 'application/json', ...scenario.headers },
        setupRequest: (request, context) => {
          const next = scenario.nextRequest();
          (context as { key?: string }).key = next.key;
          const headers = next.headers ? { ...request.headers, ...next.headers } : request.headers;
          return { ...request, body: next.body, headers, path: next.path ?? request.path };
        },
        onResponse: (status, _body, context) => {
          const key = (context as { key?: string }).key;
          if (expected.has(status) && key !== undefined) succeeded.push(key);
        },
      },
    ],
  }, (error, result) => finish(error, result));
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    latencies.push(responseTime);
    statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
  });
  const result = await finished;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuUsed = server.cpuSeconds() - cpuBefore;
  const load = process.cpuUsage(loadBefore);
  const databaseCpu = cpuSecondsSince(backendsBefore, await databaseBackends());

  const sorted = Float64Array.from(latencies).sort();
  const ok = [...expected].reduce((sum, status) => sum + (statuses[status] ?? 0), 0);
  const memory = server.memory();
  return {
    name: scenario.name,
    connections: scenario.connections,
    seconds: result.duration,
    requests: latencies.length,
    throughput: ok / result.duration,
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
    errors: latencies.length - ok + result.errors,
    statuses,
    rssMiB: memory.rssMiB,
    peakRssMiB: memory.peakMiB,
    serverCpuPercent: (cpuUsed / seconds) * 100,
    databaseCpuPercent: (databaseCpu / seconds) * 100,
    loadGeneratorCpuPercent: ((load.user + load.system) / 1e6 / seconds) * 100,
    serverCpuMsPerRequest: (cpuUsed * 1000) / latencies.length,
    databaseCpuMsPerRequest: (databaseCpu * 1000) / latencies.length,
    succeeded,
  };
}

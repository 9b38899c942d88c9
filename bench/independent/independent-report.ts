import type { Target } from '../report';
import type { IndependentReport, IndependentRow } from './independent-shape';

const OURS = ['npm start', 'npm run start:prod'];

function row(report: IndependentReport, service: string, phase: string, connections: number): IndependentRow | undefined {
  return report.rows.find((r) => r.service === service && r.phase === phase && r.connections === connections);
}

/** Issue 32's targets, for each way of starting our server, from this one run. */
export function independentTargets(report: IndependentReport): Target[] {
  // The stricter reference: the higher of pgbench before and after.
  const pgbench = Math.max(report.reference.before?.tps ?? NaN, report.reference.after?.tps ?? NaN);
  const express64 = row(report, 'express + pg', 'new orders', 64)?.result.throughput ?? NaN;
  return OURS.flatMap((service) => {
    const at16 = row(report, service, 'new orders', 16)?.result;
    const at64 = row(report, service, 'new orders', 64)?.result;
    const replay = row(report, service, 'duplicate replay', 64)?.result;
    const ratio = (value: number | undefined, over: number | undefined) => (value ?? NaN) / (over ?? NaN);
    const targets: Array<[string, number, string, (value: number) => boolean]> = [
      ['ingest at 64 ÷ pgbench at 64', ratio(at64?.throughput, pgbench), '≥ 0.30', (v) => v >= 0.3],
      ['ingest at 64 ÷ express + pg at 64', ratio(at64?.throughput, express64), '≥ 1.5', (v) => v >= 1.5],
      ['p99 at 16 (ms)', at16?.p99 ?? NaN, '≤ 25', (v) => v <= 25],
      ['rps at 64 ÷ rps at 16', ratio(at64?.throughput, at16?.throughput), '≥ 1.0', (v) => v >= 1],
      ['duplicate replay ÷ new orders at 64', ratio(replay?.throughput, at64?.throughput), '≥ 2', (v) => v >= 2],
      ['errors', report.rows.filter((r) => r.service === service).reduce((sum, r) => sum + r.result.errors, 0), '0', (v) => v === 0],
    ];
    return targets.map(([name, value, goal, met]) => ({ name: `independent, ${service}: ${name}`, value, goal, met: Number.isFinite(value) && met(value) }));
  });
}

const f = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

/** The independent shape's rows, as a table beside the bench's own. */
export function renderIndependent(report: IndependentReport): string {
  const header = ['independent shape', 'phase', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'CPU ms/req service', 'CPU ms/req database', 'CPU % load'];
  const cells = report.rows.map((r) => [
    r.service, r.phase, String(r.connections), f(r.result.throughput), f(r.result.p50), f(r.result.p99), String(r.result.errors),
    f(r.serviceCpuMsPerRequest, 2), f(r.databaseCpuMsPerRequest, 2), f(r.result.cpuPercent, 0),
  ]);
  const widths = header.map((title, index) => Math.max(title.length, ...cells.map((c) => c[index]!.length)));
  const line = (c: string[]) => c.map((cell, index) => (index < 2 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!))).join('  ');
  const { before, after } = report.reference;
  return [
    line(header),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...cells.map(line),
    `pgbench at 64 (INSERT … ON CONFLICT + UPDATE): before ${f(before?.tps ?? NaN, 0)} TPS, after ${f(after?.tps ?? NaN, 0)} TPS`,
    `ready after: ${Object.entries(report.startSeconds).map(([service, s]) => `${service} ${f(s)} s`).join(', ')}; ` +
      `request log lines per request: ${Object.entries(report.logLinesPerRequest).map(([service, n]) => `${service} ${f(n, 2)}`).join(', ')}`,
    ...report.notes,
  ].join('\n');
}

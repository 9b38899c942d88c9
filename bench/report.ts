import type { ScenarioResult } from './load-scenario';
import type { ReferenceResult } from './pgbench-reference';
import { renderIndependent } from './independent/independent-report';
import type { IndependentReport } from './independent/independent-shape';

export interface Target {
  name: string;
  value: number;
  goal: string;
  met: boolean;
}

export interface BenchReport {
  started_at: string;
  environment: { cpus: number; node: string; postgres: string; database: string; seconds_per_scenario: number };
  scenarios: Array<Omit<ScenarioResult, 'succeeded'> & { rows_before: number }>;
  skipped: Array<{ name: string; reason: string }>;
  notes: string[];
  reference: ReferenceResult[];
  /** Large ÷ small, at 1 connection (and at 16). */
  growth: {
    rows_small: number;
    rows_large: number;
    p50_ratio: number;
    p50_ratio_16: number;
    throughput_ratio: number;
    throughput_ratio_16: number;
  } | null;
  targets: Target[];
  /** The independent shape (bench/independent): `npm start` and start:prod as a merchant runs them, Express + pg, pgbench. */
  independent?: IndependentReport;
  total_seconds: number;
}

const round = (value: number, digits = 1) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : null);

function pad(cells: string[], widths: number[]): string {
  return cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!))).join('  ');
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, index) => Math.max(title.length, ...rows.map((row) => row[index]!.length)));
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [pad(header, widths), rule, ...rows.map((row) => pad(row, widths))].join('\n');
}

/** The table a person reads. */
export function renderTable(report: BenchReport): string {
  const f = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
  const lines: string[] = [];
  const env = report.environment;
  lines.push(`Referral service benchmark — ${env.cpus} CPUs shared by server, load generator and ${env.postgres}; node ${env.node}`);
  lines.push('');
  lines.push(
    table(
      ['scenario', 'conns', 'rows before', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', 'errors', 'RSS MiB', 'CPU % server/db/load', 'CPU ms/req server/db'],
      report.scenarios.map((s) => [
        s.name, String(s.connections), String(s.rows_before), f(s.throughput), f(s.p50, 2), f(s.p95, 2), f(s.p99, 2),
        String(s.errors), f(s.rssMiB),
        `${f(s.serverCpuPercent, 0)}/${f(s.databaseCpuPercent, 0)}/${f(s.loadGeneratorCpuPercent, 0)}`,
        `${f(s.serverCpuMsPerRequest, 2)}/${f(s.databaseCpuMsPerRequest, 2)}`,
      ]),
    ),
  );
  for (const skipped of report.skipped) lines.push(`${skipped.name}: skipped: ${skipped.reason}`);
  for (const note of report.notes) lines.push(note);
  lines.push('');
  lines.push(
    table(
      ['pgbench reference (INSERT … ON CONFLICT + UPDATE)', 'conns', 'TPS', 'avg ms'],
      report.reference.map((r) => ['event + balance', String(r.connections), f(r.tps), f(r.latencyAverageMs, 2)]),
    ),
  );
  if (report.growth) {
    const g = report.growth;
    lines.push('');
    lines.push(
      `growth, ${g.rows_large} rows ÷ ${g.rows_small} rows: p50 ${f(g.p50_ratio, 2)} at 1 connection, ${f(g.p50_ratio_16, 2)} at 16; ` +
        `throughput ${f(g.throughput_ratio, 2)} at 1, ${f(g.throughput_ratio_16, 2)} at 16`,
    );
  }
  if (report.independent) {
    lines.push('');
    lines.push(renderIndependent(report.independent));
  }
  lines.push('');
  lines.push(
    table(
      ['target', 'value', 'goal', 'met'],
      report.targets.map((t) => [t.name, f(t.value, 2), t.goal, t.met ? 'yes' : 'NO']),
    ),
  );
  lines.push('');
  lines.push(`total ${f(report.total_seconds, 0)} s`);
  return lines.join('\n');
}

/** The one line a script reads. */
export function renderJson(report: BenchReport): string {
  return JSON.stringify(report, (_key, value) => (typeof value === 'number' ? round(value, 3) : value));
}

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDatabase } from '../../core/db/create-database';
import { recreateDatabase } from '../bench-database';
import { findPgbench, prepareReference, type ReferenceResult, runReference } from '../pgbench-reference';
import { EXPRESS_TABLES } from './express-service';
import type { LoadPlan, LoadResult } from './load-process';
import { postgresCpuSeconds } from '../process-cpu';
import { freePort } from '../server-process';
import { REPOSITORY, type RunningService, referrals, startService } from './services';

/**
 * The shape of the independent measurement (issue 32): the server as a merchant runs it (the
 * README's command, default log level, a CLI-made brand with default settings and one advocate),
 * loaded from a separate process with a different X-Forwarded-For per request, next to a plain
 * Express + pg service and pgbench's reference on the same PostgreSQL.
 */
const UNLIMITED = '100000000';
const RATE_LIMITS = ['VISIT', 'CLAIM', 'CONVERSION', 'REFUND', 'ELIGIBILITY', 'CONVERT'];
const CONVERSION = '/api/v1/track/conversion';

export interface IndependentRow {
  /** `npm start`, `npm run start:prod` or `express + pg`. */
  service: string;
  phase: string;
  connections: number;
  result: LoadResult;
  /** CPU ms of the service's processes per request. */
  serviceCpuMsPerRequest: number;
  /** CPU ms of this machine's PostgreSQL processes per request (the service's backends and PostgreSQL's own). */
  databaseCpuMsPerRequest: number;
}

export interface IndependentReport {
  rows: IndependentRow[];
  reference: { before: ReferenceResult | null; after: ReferenceResult | null };
  /** Seconds from the command to ready, per service (npm start includes a build when sources changed). */
  startSeconds: Record<string, number>;
  /** Lines the server logged per request at its default level (1 = one request line each). */
  logLinesPerRequest: Record<string, number>;
  notes: string[];
}

function databaseUrlNamed(name: string): string {
  const url = new URL(process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/${name}`;
  return url.toString();
}

/** One autocannon run from its own process (bench/independent/load-process.ts). */
async function load(plan: Omit<LoadPlan, 'resultFile'>, workDir: string): Promise<LoadResult> {
  const resultFile = path.join(workDir, `result-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'load-process.ts')], {
    cwd: REPOSITORY,
    env: { ...process.env, LOAD_PLAN: JSON.stringify({ ...plan, resultFile }) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the load generator exited with ${code}`);
  return JSON.parse(fs.readFileSync(resultFile, 'utf8')) as LoadResult;
}

/** What a merchant's production environment sets: no LOG_LEVEL (the default), a proxy in front, limits out of the way. */
function merchantEnvironment(databaseUrl: string, dataDir: string): NodeJS.ProcessEnv {
  const { LOG_LEVEL: _level, PORT: _port, ...inherited } = process.env;
  return {
    ...inherited,
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    NODE_ENV: 'production',
    TRUST_PROXY: 'true',
    ...Object.fromEntries(RATE_LIMITS.map((name) => [`RATE_LIMIT_${name}`, UNLIMITED])),
  };
}

/** Phases on one service: 2 s warm-up, 10 s at 16, 10 s at 64, and (ours) a replay of what 64 acknowledged, at 64. */
async function measureService(
  service: string,
  running: RunningService,
  plan: Pick<LoadPlan, 'path' | 'headers' | 'referralCode'> & { replay: boolean; expectedStatus: number[] },
  seconds: number,
  workDir: string,
  progress: (message: string) => void,
): Promise<IndependentRow[]> {
  const rows: IndependentRow[] = [];
  const base = { url: running.url, path: plan.path, headers: plan.headers, referralCode: plan.referralCode, expectedStatus: plan.expectedStatus };
  const phase = async (name: string, connections: number, durationSeconds: number, extra: Partial<LoadPlan>): Promise<LoadResult> => {
    const cpuBefore = running.cpuSeconds();
    const databaseBefore = postgresCpuSeconds();
    const result = await load({ ...base, connections, durationSeconds, kind: 'conversion', orderPrefix: `${service}-${name}-${Date.now()}`.replace(/\W+/g, '-'), ...extra }, workDir);
    const cpu = running.cpuSeconds() - cpuBefore;
    const databaseCpu = postgresCpuSeconds() - databaseBefore;
    const perRequest = (cpuSeconds: number) => (cpuSeconds * 1000) / Math.max(1, result.requests);
    if (name !== 'warm-up') rows.push({ service, phase: name, connections, result, serviceCpuMsPerRequest: perRequest(cpu), databaseCpuMsPerRequest: perRequest(databaseCpu) });
    progress(`  ${service} ${name} at ${connections}: ${result.throughput.toFixed(0)} req/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, ${result.errors} errors${result.errors ? ` ${JSON.stringify(result.statuses)}` : ""}`);
    return result;
  };
  await phase('warm-up', 16, 2, {});
  await phase('new orders', 16, seconds, {});
  const acknowledgedFile = path.join(workDir, `acknowledged-${Date.now()}.txt`);
  await phase('new orders', 64, seconds, { acknowledgedFile });
  if (plan.replay) await phase('duplicate replay', 64, seconds, { kind: 'replay', replayFile: acknowledgedFile, expectedStatus: [200] });
  return rows;
}

async function measureOurs(
  service: string,
  command: string[],
  seconds: number,
  workDir: string,
  progress: (message: string) => void,
): Promise<{ rows: IndependentRow[]; startSeconds: number; logLinesPerRequest: number }> {
  const databaseUrl = databaseUrlNamed('referrals_bench_independent');
  await recreateDatabase(databaseUrl);
  const dataDir = fs.mkdtempSync(path.join(workDir, 'data-'));
  const env = merchantEnvironment(databaseUrl, dataDir);
  progress(`${service}: a fresh database, a brand and one advocate made with npx referrals`);
  const brand = await referrals(['brand', 'create', '--name', 'Independent store', '--plan', 'premier', '--reward-type', 'fixed', '--reward-value', '5'], env);
  const advocate = await referrals(['advocate', 'create', '--brand', String(brand.brand_id), '--email', 'ann@example.com', '--first-name', 'Ann'], env);
  const logFile = path.join(workDir, `${service.replace(/\W+/g, '-')}.log`);
  const running = await startService(command, env, await freePort(), logFile);
  progress(`${service}: ready in ${running.startSeconds.toFixed(1)} s`);
  try {
    const rows = await measureService(
      service,
      running,
      {
        path: CONVERSION,
        headers: { 'x-api-key': String(brand.api_key), 'x-brand-id': String(brand.brand_id) },
        referralCode: String(advocate.referral_code),
        replay: true,
        expectedStatus: [201],
      },
      seconds,
      workDir,
      progress,
    );
    const requests = rows.reduce((sum, row) => sum + row.result.requests, 0);
    const logged = fs.readFileSync(logFile, 'utf8').split('\n').filter((line) => line.includes('"msg":"request"')).length;
    return { rows, startSeconds: running.startSeconds, logLinesPerRequest: logged / requests };
  } finally {
    await running.stop();
  }
}

async function measureExpress(seconds: number, workDir: string, progress: (message: string) => void): Promise<IndependentRow[]> {
  const databaseUrl = databaseUrlNamed('referrals_bench_express');
  await recreateDatabase(databaseUrl);
  const db = createDatabase({ databaseUrl, poolMax: 1 });
  try {
    await db.raw(EXPRESS_TABLES);
    await db.raw("INSERT INTO express_codes (code, advocate_id) VALUES ('ANN1', 1)");
  } finally {
    await db.destroy();
  }
  const running = await startService(
    [process.execPath, '--import', 'tsx', path.join(__dirname, 'express-service.ts')],
    { ...process.env, NODE_ENV: 'production', EXPRESS_DATABASE_URL: databaseUrl },
    await freePort(),
    path.join(workDir, 'express.log'),
  );
  try {
    return await measureService('express + pg', running, { path: '/orders', headers: {}, referralCode: 'ANN1', replay: false, expectedStatus: [201] }, seconds, workDir, progress);
  } finally {
    await running.stop();
  }
}

async function reference(seconds: number, progress: (message: string) => void): Promise<ReferenceResult | null> {
  const pgbench = findPgbench();
  if (!pgbench) return null;
  const databaseUrl = databaseUrlNamed('referrals_bench_reference');
  await recreateDatabase(databaseUrl);
  const db = createDatabase({ databaseUrl, poolMax: 1 });
  try {
    await prepareReference(db, 1000);
  } finally {
    await db.destroy();
  }
  const result = await runReference(pgbench, databaseUrl, 64, seconds, 1000);
  progress(`  pgbench at 64: ${result.tps.toFixed(0)} TPS`);
  return result;
}

/** Which of the shape's services to run: all of them, or (while working on one) those BENCH_INDEPENDENT_ONLY names, e.g. `start:prod,express`. */
function selected(name: 'start' | 'start:prod' | 'express' | 'pgbench'): boolean {
  const only = process.env.BENCH_INDEPENDENT_ONLY;
  return !only || only.split(',').map((s) => s.trim()).includes(name);
}

/** The whole independent shape: pgbench, `npm start`, `npm run start:prod` (after `npm run build`), Express + pg, pgbench again. */
export async function runIndependentShape(seconds: number, progress: (message: string) => void): Promise<IndependentReport> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'referrals-independent-'));
  const notes: string[] = [];
  try {
    progress('independent shape: pgbench reference (before)');
    const before = selected('pgbench') ? await reference(seconds, progress) : null;
    const none = { rows: [], startSeconds: NaN, logLinesPerRequest: NaN };
    const started = selected('start') ? await measureOurs('npm start', ['npm', 'start'], seconds, workDir, progress) : none;
    progress('npm run build');
    await new Promise<void>((resolve, reject) => {
      const build = spawn('npm', ['run', 'build'], { cwd: REPOSITORY, stdio: ['ignore', 'ignore', 'inherit'] });
      build.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`npm run build exited with ${code}`))));
    });
    const production = selected('start:prod') ? await measureOurs('npm run start:prod', ['npm', 'run', 'start:prod'], seconds, workDir, progress) : none;
    progress('independent shape: express + pg');
    const express = selected('express') ? await measureExpress(seconds, workDir, progress) : [];
    progress('independent shape: pgbench reference (after)');
    const after = selected('pgbench') ? await reference(seconds, progress) : null;
    if (!before || !after) notes.push('pgbench not run or not found (set PGBENCH): no reference ratios');
    if (process.env.BENCH_INDEPENDENT_ONLY) notes.push(`only ${process.env.BENCH_INDEPENDENT_ONLY} (BENCH_INDEPENDENT_ONLY): not a whole run`);
    return {
      rows: [...started.rows, ...production.rows, ...express],
      reference: { before, after },
      startSeconds: { 'npm start': started.startSeconds, 'npm run start:prod': production.startSeconds },
      logLinesPerRequest: { 'npm start': started.logLinesPerRequest, 'npm run start:prod': production.logLinesPerRequest },
      notes,
    };
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

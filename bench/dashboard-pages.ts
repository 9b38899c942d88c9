import { createLoginLink } from '../core/dashboard/dashboard-sign-in';
import type { Database } from '../core/db/create-database';

/** Each page the merchant opens, as its URL (30 days unless it says otherwise). */
export const DASHBOARD_PAGES: Array<[name: string, path: string]> = [
  ['overview, 7 days', '/dashboard?period=7'],
  ['overview, 30 days', '/dashboard?period=30'],
  ['overview, 90 days', '/dashboard?period=90'],
  ['overview, 366 days (custom, the longest)', '/dashboard?period=custom&from=FROM366&to=TODAY'],
  ['advocates, page 1', '/dashboard/advocates'],
  ['advocates, page 40', '/dashboard/advocates?page=40'],
  ['advocates, search', '/dashboard/advocates?q=bench12'],
  ['advocate history', '/dashboard/advocates/ADVOCATE'],
  ['activity, all kinds', '/dashboard/activity'],
  ['activity, page 20', '/dashboard/activity?page=20'],
  ['activity, refunds only', '/dashboard/activity?kind=refund'],
  ['revenue by product, 30 days', '/dashboard/products'],
  ['revenue by product, 90 days', '/dashboard/products?period=90'],
  ['connections', '/dashboard/connections'],
  ['overview CSV, 90 days', '/dashboard?period=90&format=csv'],
];

export interface PageTiming {
  page: string;
  path: string;
  requests: number;
  /** The first request: a period's closed days are computed and stored then. */
  first: number;
  p50: number;
  p95: number;
  max: number;
  bytes: number;
}

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/**
 * Signs in to the dashboard as the brand (a one-time link, as the CLI prints it), then opens each
 * page `rounds` times, one request at a time, timing the whole response (headers and body).
 */
export async function timeDashboardPages(serverUrl: string, db: Database, brandId: string, rounds = 20): Promise<PageTiming[]> {
  const link = await createLoginLink(db, brandId);
  const login = await fetch(`${serverUrl}/dashboard/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ brand: brandId, token: link.token }),
    redirect: 'manual',
  });
  if (login.status !== 303) throw new Error(`dashboard sign-in answered ${login.status}: ${await login.text()}`);
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const advocate = await db('advocates').where({ brand_id: brandId }).orderBy('advocate_id').first('advocate_id');
  const timings: PageTiming[] = [];
  for (const [page, template] of DASHBOARD_PAGES) {
    const path = template.replace('FROM366', day(-365)).replace('TODAY', day(0)).replace('ADVOCATE', String(advocate.advocate_id));
    const took: number[] = [];
    let first = 0;
    let bytes = 0;
    for (let round = 0; round <= rounds; round += 1) {
      const started = process.hrtime.bigint();
      const response = await fetch(`${serverUrl}${path}`, { headers: { cookie } });
      const body = await response.arrayBuffer();
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${Buffer.from(body).toString('utf8').slice(0, 500)}`);
      bytes = body.byteLength;
      // The first request of each page computes the stored days it needs (and warms plans and caches).
      if (round > 0) took.push(ms);
      else first = ms;
    }
    took.sort((a, b) => a - b);
    const at = (share: number) => took[Math.min(took.length - 1, Math.floor(share * took.length))]!;
    timings.push({ page, path, requests: took.length, first, p50: at(0.5), p95: at(0.95), max: took[took.length - 1]!, bytes });
  }
  return timings;
}

/** The table a person reads. */
export function renderPageTimings(timings: PageTiming[]): string {
  const rows = timings.map((t) => `${t.page.padEnd(44)} ${t.first.toFixed(1).padStart(9)} ${t.p50.toFixed(1).padStart(8)} ${t.p95.toFixed(1).padStart(8)} ${t.max.toFixed(1).padStart(8)} ${String(t.bytes).padStart(9)}`);
  return [`${'dashboard page (1 connection)'.padEnd(44)} ${'first ms'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'max ms'.padStart(8)} ${'bytes'.padStart(9)}`, ...rows].join('\n');
}

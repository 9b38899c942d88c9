import type { Knex } from 'knex';
import { tryLockKeys } from '../db/advisory-lock';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** A day or hour is stored once it ended this long ago: no transaction writing into it can still be open. */
const SETTLE_MS = HOUR_MS;

/** Stored figures come in days and, for the current day, hours. */
export type Grain = 'day' | 'hour';

interface GrainSpec {
  ms: number;
  /** A bucket's text: YYYY-MM-DD, or YYYY-MM-DDTHH. */
  text(date: Date): string;
  /** The same, as PostgreSQL's to_char format. */
  format: string;
  /** The stored tables' bucket column, and a bucket text (:bucket) cast to it. */
  column: 'day' | 'hour';
  cast(expression: string): string;
}

export const GRAINS: Record<Grain, GrainSpec> = {
  day: { ms: DAY_MS, text: (date) => date.toISOString().slice(0, 10), format: 'YYYY-MM-DD', column: 'day', cast: (e) => `CAST(${e} AS date)` },
  hour: {
    ms: HOUR_MS,
    text: (date) => date.toISOString().slice(0, 13),
    format: 'YYYY-MM-DD"T"HH24',
    column: 'hour',
    cast: (e) => `CAST(${e} || ':00:00+00' AS timestamptz)`,
  },
};

/** A bucket column's bound: a day as YYYY-MM-DD (a date compared with a timestamp would use the session's time zone), an hour as the instant. */
export function columnBound(grain: Grain, at: Date): string | Date {
  return grain === 'day' ? at.toISOString().slice(0, 10) : at;
}

export interface Range {
  from: Date;
  to: Date;
}

/**
 * A period split where stored figures end: closed days (ended more than an hour ago), then the
 * current day's closed hours, both read from the stored report (computed once); the last hour or two
 * are computed live on every view.
 */
export function splitPeriod(period: Range, now = new Date()): { days: Range | null; hours: Range | null; live: Range | null } {
  const settled = now.getTime() - SETTLE_MS;
  const dayCutoff = Math.floor(settled / DAY_MS) * DAY_MS;
  const hourCutoff = Math.floor(settled / HOUR_MS) * HOUR_MS;
  const range = (from: number, to: number) => (to > from ? { from: new Date(from), to: new Date(to) } : null);
  const from = period.from.getTime();
  const to = period.to.getTime();
  return {
    days: range(from, Math.min(to, dayCutoff)),
    hours: range(Math.max(from, dayCutoff), Math.min(to, hourCutoff)),
    live: range(Math.max(from, hourCutoff), to),
  };
}

/** When a bucket (YYYY-MM-DD or YYYY-MM-DDTHH, UTC) begins. */
function bucketStart(bucket: string): Date {
  return new Date(bucket.length === 10 ? `${bucket}T00:00:00Z` : `${bucket}:00:00Z`);
}

function bucketsBetween(grain: Grain, range: Range): string[] {
  const buckets: string[] = [];
  for (let at = range.from.getTime(); at < range.to.getTime(); at += GRAINS[grain].ms) buckets.push(GRAINS[grain].text(new Date(at)));
  return buckets;
}

/** A PostgreSQL array literal of bucket texts (knex would spread a JS array into a list of parameters). */
export function textArray(buckets: string[]): string {
  return `{${buckets.join(',')}}`;
}

export interface StoredReport {
  /** The table whose row marks a bucket as computed. */
  doneTable(grain: Grain): string;
  /** Computes and stores the given buckets (between from and to) inside the locking transaction. */
  store(trx: Knex.Transaction, brandId: string, grain: Grain, range: Range, buckets: string[]): Promise<void>;
}

/**
 * Makes sure every bucket of a closed range is stored; false when one of its days is being changed
 * right now (its lock is held by a writer's invalidation trigger), and the caller computes it live.
 * Missing buckets are computed under the advisory lock of their day, which the invalidation trigger
 * takes too, tried without waiting: a change is either seen by the computation or deletes what it
 * stored.
 */
export async function ensureStored(db: Knex, brandId: string, grain: Grain, range: Range, report: StoredReport): Promise<boolean> {
  const { column, format } = GRAINS[grain];
  const rows: Array<{ bucket: string }> = await db(report.doneTable(grain))
    .where({ brand_id: brandId })
    .where(column, '>=', columnBound(grain, range.from))
    .where(column, '<', columnBound(grain, range.to))
    .select(db.raw(`to_char(${column}${grain === 'hour' ? " AT TIME ZONE 'UTC'" : ''}, ?) AS bucket`, [format]));
  const stored = new Set(rows.map((row) => row.bucket));
  const missing = bucketsBetween(grain, range).filter((bucket) => !stored.has(bucket));
  if (missing.length === 0) return true;
  return db.transaction(async (trx) => {
    const days = new Set(missing.map((bucket) => bucket.slice(0, 10)));
    if (!(await tryLockKeys(trx, [...days].map((day) => `report-day:${brandId}:${day}`)))) return false;
    const from = bucketStart(missing[0]!);
    const to = new Date(bucketStart(missing[missing.length - 1]!).getTime() + GRAINS[grain].ms);
    await report.store(trx, brandId, grain, { from, to }, missing);
    return true;
  });
}

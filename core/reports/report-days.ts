import type { Knex } from 'knex';

const DAY_MS = 86_400_000;
/** A day is stored once it ended this long ago: no transaction writing into it can still be open. */
const SETTLE_MS = 3_600_000;

const dayText = (date: Date) => date.toISOString().slice(0, 10);

/**
 * A period split where stored figures end: [from, cutoff) are days that ended more than an hour
 * ago (read from the stored report, computed once), [cutoff, to) is computed live on every view.
 */
export function splitAtCutoff(period: { from: Date; to: Date }, now = new Date()) {
  const settled = new Date(now.getTime() - SETTLE_MS);
  const cutoff = new Date(Date.UTC(settled.getUTCFullYear(), settled.getUTCMonth(), settled.getUTCDate()));
  const closedTo = new Date(Math.min(period.to.getTime(), cutoff.getTime()));
  const liveFrom = new Date(Math.max(period.from.getTime(), cutoff.getTime()));
  return {
    closed: closedTo > period.from ? { from: period.from, to: closedTo } : null,
    live: period.to > liveFrom ? { from: liveFrom, to: period.to } : null,
  };
}

function daysBetween(from: Date, to: Date): string[] {
  const days: string[] = [];
  for (let at = from.getTime(); at < to.getTime(); at += DAY_MS) days.push(dayText(new Date(at)));
  return days;
}

/** A PostgreSQL array literal of days (knex would spread a JS array into a list of parameters). */
export function textArray(days: string[]): string {
  return `{${days.join(',')}}`;
}

export interface StoredReport {
  /** The table whose row marks a day as computed. */
  doneTable: 'report_days' | 'report_day_products_done';
  /** Computes and stores the given days (between from and to) inside the locking transaction. */
  store(trx: Knex.Transaction, brandId: string, range: { from: Date; to: Date }, days: string[]): Promise<void>;
}

/**
 * Makes sure every day of a closed range is stored; false when one of them is being changed right
 * now (its lock is held by a writer's invalidation trigger), and the caller computes it live.
 * Each missing day is computed under the advisory lock the invalidation trigger takes, tried
 * without waiting: a change is either seen by the computation or deletes what it stored.
 */
export async function ensureStored(db: Knex, brandId: string, range: { from: Date; to: Date }, report: StoredReport): Promise<boolean> {
  const rows: Array<{ day: string }> = await db(report.doneTable)
    .where({ brand_id: brandId })
    .where('day', '>=', dayText(range.from))
    .where('day', '<', dayText(range.to))
    .select(db.raw(`to_char(day, 'YYYY-MM-DD') AS day`));
  const stored = new Set(rows.map((row) => row.day));
  const missing = daysBetween(range.from, range.to).filter((day) => !stored.has(day));
  if (missing.length === 0) return true;
  return db.transaction(async (trx) => {
    const locked = await trx.raw<{ rows: Array<{ ok: boolean }> }>(
      `SELECT bool_and(pg_try_advisory_xact_lock(hashtextextended('report-day:' || ? || ':' || day, 0))) AS ok FROM unnest(CAST(? AS text[])) AS day`,
      [brandId, textArray(missing)],
    );
    if (!locked.rows[0]?.ok) return false;
    const from = new Date(`${missing[0]}T00:00:00Z`);
    const to = new Date(new Date(`${missing[missing.length - 1]}T00:00:00Z`).getTime() + DAY_MS);
    await report.store(trx, brandId, { from, to }, missing);
    return true;
  });
}

import { Invalid } from '../errors';

/** A report's period: [from, to), in whole UTC days. Every aggregate is bounded by one. */
export interface Period {
  from: Date;
  to: Date;
  /** `7`, `30`, `90` or `custom`: what the merchant chose. */
  preset: string;
}

export const PERIOD_PRESETS = ['7', '30', '90'] as const;
/** A custom period may span at most this many days, so no query reads the whole history. */
export const MAX_PERIOD_DAYS = 366;
const DAY_MS = 86_400_000;

function startOfUtcDay(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

/** The last `days` days, today included. */
export function lastDays(days: number, now = new Date()): Period {
  const to = new Date(startOfUtcDay(now).getTime() + DAY_MS);
  return { from: new Date(to.getTime() - days * DAY_MS), to, preset: String(days) };
}

/** From `from` to `to`, both whole days included (YYYY-MM-DD, UTC). */
export function customPeriod(from: string, to: string): Period {
  const start = new Date(`${from}T00:00:00Z`);
  const end = new Date(new Date(`${to}T00:00:00Z`).getTime() + DAY_MS);
  if (end <= start) throw new Invalid(`to (${to}) must not be before from (${from})`);
  if ((end.getTime() - start.getTime()) / DAY_MS > MAX_PERIOD_DAYS) {
    throw new Invalid(`a custom period may span at most ${MAX_PERIOD_DAYS} days (from ${from} to ${to} is longer)`);
  }
  return { from: start, to: end, preset: 'custom' };
}

/** YYYY-MM-DD of the period's first and last day (inclusive), for forms and file names. */
export function periodDays(period: Period): { from: string; to: string } {
  const day = (date: Date) => date.toISOString().slice(0, 10);
  return { from: day(period.from), to: day(new Date(period.to.getTime() - DAY_MS)) };
}

/** Every UTC day of the period, oldest first (the chart's x axis, zero-filled). */
export function daysOf(period: Period): string[] {
  const days: string[] = [];
  for (let at = period.from.getTime(); at < period.to.getTime(); at += DAY_MS) days.push(new Date(at).toISOString().slice(0, 10));
  return days;
}

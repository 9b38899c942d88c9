import { z } from 'zod';
import { HttpError } from '../http-error';
import { REVIEW_STATUSES } from '../../core/fraud/reviews';
import { ACTIVITY_KINDS } from '../../core/reports/activity-feed';
import { type Period, PERIOD_PRESETS, customPeriod, lastDays } from '../../core/reports/period';

/** 2026-02-31 and 2026-13-01 are not days (an invalid Date has no ISO string: it threw, a 500). */
function isCalendarDate(value: string): boolean {
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

const day = (field: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, { error: `${field} must be a date like 2026-11-30` })
    .refine(isCalendarDate, { error: `${field} is not a calendar date` })
    .optional();

/** The query string every report page reads: the period, the page, the export format. */
export const reportQuerySchema = z.object({
  period: z.enum([...PERIOD_PRESETS, 'custom'], { error: 'period must be 7, 30, 90 or custom' }).default('30'),
  from: day('from'),
  to: day('to'),
  page: z.coerce.number({ error: 'page must be a number' }).int({ error: 'page must be a whole number' }).min(1, { error: 'page must be at least 1' }).max(10_000, { error: 'page must be at most 10000' }).default(1),
  format: z.enum(['html', 'csv'], { error: 'format must be html or csv' }).default('html'),
});

export const advocatesQuerySchema = reportQuerySchema.extend({
  q: z.string().max(200, { error: 'q (the search) must be at most 200 characters' }).optional(),
});

export const activityQuerySchema = reportQuerySchema.extend({
  kind: z.preprocess(
    (kind) => (kind === undefined ? [] : Array.isArray(kind) ? kind : [kind]),
    z.array(z.enum(ACTIVITY_KINDS, { error: `kind must be one of ${ACTIVITY_KINDS.join(', ')}` })),
  ),
});

/** GET /dashboard/reviews: the queue (open by default), a page of it, the export; `done`/`review` say what the last form did. */
export const reviewsQuerySchema = reportQuerySchema.pick({ page: true, format: true }).extend({
  status: z.enum([...REVIEW_STATUSES, 'all'], { error: 'status must be open, approved, rejected or all' }).default('open'),
  done: z.enum(['approved', 'rejected']).optional().catch(undefined),
  review: z.coerce.number().int().positive().optional().catch(undefined),
});

/** GET /dashboard/connections and an endpoint's page: what the last webhook form did. */
export const webhookNoticeSchema = z.object({
  done: z.enum(['removed', 'enabled', 'tested', 'replayed']).optional().catch(undefined),
  delivery: z.coerce.number().int().positive().optional().catch(undefined),
  /** The delivery log's page: deliveries older than this id. */
  before: z.coerce.number({ error: 'before must be a delivery id' }).int({ error: 'before must be a delivery id' }).positive({ error: 'before must be a delivery id' }).optional(),
  /** The endpoint just added, whose secret the page shows once. */
  created: z.string().max(100).optional().catch(undefined),
  format: reportQuerySchema.shape.format,
});

export type ReportQuery = z.infer<typeof reportQuerySchema>;

/** The period a query names: a preset (last 7, 30 or 90 days) or from–to, both required for custom. */
export function periodOf(query: ReportQuery): Period {
  if (query.period !== 'custom') return lastDays(Number(query.period));
  if (!query.from || !query.to) {
    throw new z.ZodError([{ code: 'custom', path: [query.from ? 'to' : 'from'], message: `${query.from ? 'to' : 'from'} is required for a custom period`, input: undefined }]);
  }
  return customPeriod(query.from, query.to);
}

/** Rows per page of every paginated table, and the most rows a CSV export holds. */
export const PER_PAGE = 25;
export const CSV_MAX_ROWS = 100_000;

/** A record's id in a dashboard path (/advocates/:id, /imports/:id): a positive integer, else the page is a 404 naming it. */
export function pathIdOf(id: string, what: string): number {
  if (!/^[1-9]\d{0,15}$/.test(id)) throw new HttpError(404, `${what} ${id} not found`);
  return Number(id);
}

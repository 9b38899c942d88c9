import { stringify } from 'csv-stringify/sync';
import type { Ctx } from '../app-context';

export type CsvColumn<T> = [header: string, value: (row: T) => string | number | null | undefined];

/**
 * Answers a table as a CSV download: RFC 4180 quoting by csv-stringify, and cells that a
 * spreadsheet would run as a formula (=, +, -, @ first) prefixed with a quote.
 */
export function sendCsv<T>(ctx: Ctx, fileName: string, columns: Array<CsvColumn<T>>, rows: readonly T[]): void {
  const records = rows.map((row) => columns.map(([, value]) => value(row) ?? ''));
  ctx.set('Content-Disposition', `attachment; filename="${fileName}.csv"`);
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'text/csv; charset=utf-8';
  ctx.body = stringify(records, { header: true, columns: columns.map(([header]) => header), escape_formulas: true, record_delimiter: 'windows' });
}

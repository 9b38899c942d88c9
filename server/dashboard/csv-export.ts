import type { Ctx } from '../app-context';
import { spreadsheetCsv } from '../spreadsheet-csv';

export type CsvColumn<T> = [header: string, value: (row: T) => string | number | null | undefined];

/** Answers a table as a CSV download, safe to open in a spreadsheet (spreadsheetCsv). */
export function sendCsv<T>(ctx: Ctx, fileName: string, columns: Array<CsvColumn<T>>, rows: readonly T[]): void {
  const records = rows.map((row) => columns.map(([, value]) => value(row) ?? ''));
  ctx.set('Content-Disposition', `attachment; filename="${fileName}.csv"`);
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'text/csv; charset=utf-8';
  ctx.body = spreadsheetCsv(records, columns.map(([header]) => header));
}

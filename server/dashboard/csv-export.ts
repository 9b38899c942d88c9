import type { Ctx } from '../app-context';
import { currencyExponent } from '../../core/currency';
import { decimalFromMinor, toMinor } from '../../core/money';
import { CsvDecimal, spreadsheetCsv } from '../spreadsheet-csv';

export type CsvColumn<T> = [header: string, value: (row: T) => string | number | CsvDecimal | null | undefined];

/** A money cell with its currency's decimals (20.00 USD → 20.00, 1500 JPY → 1500, 12.345 KWD); empty without an amount. */
export function csvMoney(value: number | null | undefined, currency: string | null | undefined): CsvDecimal | null {
  if (value === null || value === undefined) return null;
  const exponent = currency ? currencyExponent(currency) : 2;
  return new CsvDecimal(decimalFromMinor(toMinor(value, exponent), exponent));
}

/** Answers a table as a CSV download, safe to open in a spreadsheet (spreadsheetCsv). */
export function sendCsv<T>(ctx: Ctx, fileName: string, columns: Array<CsvColumn<T>>, rows: readonly T[]): void {
  const records = rows.map((row) => columns.map(([, value]) => value(row) ?? ''));
  ctx.set('Content-Disposition', `attachment; filename="${fileName}.csv"`);
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'text/csv; charset=utf-8';
  ctx.body = spreadsheetCsv(records, columns.map(([header]) => header));
}

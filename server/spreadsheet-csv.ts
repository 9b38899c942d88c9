import { stringify } from 'csv-stringify/sync';

/**
 * Every CSV we write, made safe to open in a spreadsheet: RFC 4180 quoting, CRLF rows, a field
 * holding a bare CR or LF quoted too (else `Bob\n=2+3` would start a row with a formula), and every
 * cell a spreadsheet would run as a formula — starting with =, +, -, @, a tab, a CR or their
 * full-width forms — prefixed with a quote (csv-stringify's escape_formulas).
 */
export function spreadsheetCsv(records: Array<Array<string | number>> | Array<Record<string, string | number>>, columns: readonly string[]): string {
  return stringify(records, { header: true, columns: [...columns], escape_formulas: true, record_delimiter: 'windows', quote_record_delimiter: true });
}

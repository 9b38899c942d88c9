import { stringify } from 'csv-stringify/sync';

/**
 * A formula start after a `;` or a tab inside a cell, spaces allowed between: a spreadsheet whose list
 * separator is `;` (German, French, Spanish Excel) splits `x;=1+1` there and runs the second cell.
 * Quoting would not help: in such a locale a quote after our `,` is only a character.
 */
const FORMULA_AFTER_SEPARATOR = /(?<!^)([;\t] *)(?=[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20])/g;

/**
 * Every CSV we write, made safe to open in a spreadsheet: RFC 4180 quoting, CRLF rows, a field
 * holding a bare CR or LF quoted too (else `Bob\n=2+3` would start a row with a formula), and every
 * cell a spreadsheet would run as a formula — starting with =, +, -, @, a tab, a CR or their
 * full-width forms (csv-stringify's escape_formulas), or holding one after a `;` — given a quote
 * before it.
 */
export function spreadsheetCsv(records: Array<Array<string | number>> | Array<Record<string, string | number>>, columns: readonly string[]): string {
  return stringify(records, {
    header: true,
    columns: [...columns],
    escape_formulas: true,
    record_delimiter: 'windows',
    quote_record_delimiter: true,
    cast: { string: (value) => value.replace(FORMULA_AFTER_SEPARATOR, "$1'") },
  });
}

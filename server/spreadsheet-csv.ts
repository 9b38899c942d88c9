import { stringify } from 'csv-stringify/sync';

/**
 * A formula start after a `;` or a tab inside a cell, spaces allowed between: a spreadsheet whose list
 * separator is `;` (German, French, Spanish Excel) splits `x;=1+1` there and runs the second cell.
 * Quoting would not help: in such a locale a quote after our `,` is only a character.
 */
const FORMULA_AFTER_SEPARATOR = /(?<!^)([;\t] *)(?=[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20])/g;

/** The cell starts a spreadsheet runs as a formula (csv-stringify's escape_formulas list). */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/** A text cell made inert: a quote before any formula start, at the cell's start or after a `;` or tab. */
function inertText(value: string): string {
  const separated = value.replace(FORMULA_AFTER_SEPARATOR, "$1'");
  return FORMULA_START.test(separated) ? `'${separated}` : separated;
}

/**
 * A number the CSV writes exactly as given, such as a money amount with its currency's decimals
 * ("-2.16", "20.00", "1500"): our own figure, never a formula, so a minus sign stays a minus sign.
 */
export class CsvDecimal {
  constructor(readonly text: string) {
    if (!/^-?\d+(\.\d+)?$/.test(text)) throw new Error(`not a decimal: ${text}`);
  }
}

type Cell = string | number | CsvDecimal;

/**
 * Every CSV we write, made safe to open in a spreadsheet: RFC 4180 quoting, CRLF rows, a field
 * holding a bare CR or LF quoted too (else `Bob\n=2+3` would start a row with a formula), and every
 * text cell a spreadsheet would run as a formula — starting with =, +, -, @, a tab, a CR or their
 * full-width forms, or holding one after a `;` — given a quote before it. Numbers (and CsvDecimal
 * amounts) are written as they are.
 */
export function spreadsheetCsv(records: Array<Array<Cell>> | Array<Record<string, Cell>>, columns: readonly string[]): string {
  return stringify(records, {
    header: true,
    columns: [...columns],
    record_delimiter: 'windows',
    quote_record_delimiter: true,
    cast: {
      string: inertText,
      object: (value) => (value instanceof CsvDecimal ? value.text : inertText(JSON.stringify(value))),
    },
  });
}

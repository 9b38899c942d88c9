import { parse } from 'csv-parse/sync';
import { payoutsCsv } from '../../server/cli/payouts-csv';
import { csvMoney } from '../../server/dashboard/csv-export';
import { CsvDecimal, spreadsheetCsv } from '../../server/spreadsheet-csv';

/** What people type that a spreadsheet would run, or that would break a row in two. */
const HOSTILE = ['=2+3', '+2+3', '-2+3', '@SUM(A1)', '\t=2+3', '\r=2+3', 'Bob\n=2+3', 'Bob\r=2+3', 'Bob\r\n=2+3', '＝2+3', '＋2+3', '－2+3', '＠SUM(A1)'];

/** Whether a cell, as a spreadsheet reads it, would be taken as a formula. */
const formula = (cell: string) => /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/.test(cell);

describe('every CSV we write is safe to open in a spreadsheet', () => {
  it('keeps each hostile name in its own cell, on its own row, never as a formula', () => {
    const csv = spreadsheetCsv(HOSTILE.map((name, index) => [index, name]), ['id', 'name']);
    // Read as a spreadsheet does: a CR, an LF or both end a row (outside quotes).
    const rows = parse(csv, { record_delimiter: ['\r\n', '\n', '\r'] }) as string[][];
    expect(rows).toHaveLength(HOSTILE.length + 1); // no name started a row of its own
    for (const [index, name] of HOSTILE.entries()) {
      const [id, cell] = rows[index + 1]!;
      // A cell that would run is prefixed with a quote; a line break inside a name stays inside its quoted cell.
      expect([name, id, formula(cell!), cell]).toEqual([name, String(index), false, formula(name) ? `'${name}` : name]);
    }
  });

  it('keeps a cell like `x;=1+1` whole in a spreadsheet that splits on semicolons (de/fr/es Excel), where it was written bare and ran `=1+1`', () => {
    const names = ['x;=1+1', 'x;+1+1', 'x;-1+1', 'x;@SUM(A1)', 'x; =1+1', 'x;\t=1', 'a,b;=1', 'plain'];
    const csv = spreadsheetCsv(names.map((name, index) => [index, name]), ['id', 'name']);
    for (const delimiter of [';', ',', '\t']) {
      // Read as a spreadsheet in that locale does: quotes group a cell, the delimiter splits the rest.
      const rows = parse(csv, { delimiter, record_delimiter: ['\r\n', '\n', '\r'], relax_column_count: true, relax_quotes: true }) as string[][];
      const cells = rows.slice(1).flat();
      expect(cells.filter((cell) => formula(cell.trimStart()))).toEqual([]);
    }
    // Read with commas, each name comes back as typed but for a quote before the formula.
    const rows = parse(csv, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((row) => row.name)).toEqual(["x;'=1+1", "x;'+1+1", "x;'-1+1", "x;'@SUM(A1)", "x; '=1+1", "x;'\t'=1", "a,b;'=1", 'plain']);
  });

  it('writes the payouts file the same way, with each currency\'s decimals', () => {
    const csv = payoutsCsv([
      { payout_id: 'P-1-9', advocate_id: 1, email: '=cmd@example.com', code: 'Bob\n=2+3', currency: 'KWD', amount: 1.234 },
      { payout_id: 'P-2-9', advocate_id: 2, email: 'b@example.com', code: 'B', currency: 'JPY', amount: 1500 },
    ]);
    const rows = parse(csv, { columns: true, record_delimiter: ['\r\n', '\n', '\r'] }) as Array<Record<string, string>>;
    expect(rows.map((row) => [row.email, row.code, row.amount])).toEqual([
      ["'=cmd@example.com", 'Bob\n=2+3', '1.234'],
      ['b@example.com', 'B', '1500'],
    ]);
    expect(csv.startsWith('payout_id,advocate_id,email,code,currency,amount\r\n')).toBe(true);
  });

  it('writes money as a number with its currency\'s decimals (a minus sign stays a minus), while text starting with a minus is made inert', () => {
    // Issue 41: the exports wrote 0, 120 and -10 where the page showed 0.00, 120.00 and -10.00.
    const cells = [[csvMoney(-2.16, 'USD')!, csvMoney(1500, 'JPY')!, csvMoney(12.3456, 'KWD')!, csvMoney(0, 'USD')!, '-2+3', -5]];
    expect(spreadsheetCsv(cells, ['a', 'b', 'c', 'd', 'e', 'f'])).toBe("a,b,c,d,e,f\r\n-2.16,1500,12.346,0.00,'-2+3,-5\r\n");
    expect(csvMoney(null, 'USD')).toBeNull();
    expect(() => new CsvDecimal('=1+1')).toThrow('not a decimal');
  });
});

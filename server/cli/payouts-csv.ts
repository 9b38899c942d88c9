import { parse } from 'csv-parse/sync';
import { currencyExponent } from '../../core/currency';
import { decimalFromMinor, toMinor } from '../../core/money';
import type { PaidRow, PayoutLine } from '../../core/payouts/payouts';
import { spreadsheetCsv } from '../spreadsheet-csv';
import { CliError } from './cli-error';

/** The payouts file's columns, in order (docs/merchants/reward-lifecycle.md "Payouts CSV"). */
export const PAYOUT_COLUMNS = ['payout_id', 'advocate_id', 'email', 'code', 'currency', 'amount'] as const;

/** The payouts file: safe to open in a spreadsheet, amounts with their currency's decimals (JPY 0, KWD 3). */
export function payoutsCsv(lines: PayoutLine[]): string {
  return spreadsheetCsv(
    lines.map((line) => {
      const exponent = currencyExponent(line.currency);
      return { ...line, amount: decimalFromMinor(toMinor(line.amount, exponent), exponent) };
    }),
    PAYOUT_COLUMNS,
  );
}

/**
 * A mark-paid file → its rows. It needs the columns payout_id, advocate_id and amount (any others,
 * such as the export's email, code and currency, are ignored); a malformed row is refused naming
 * its line.
 */
export function parsePaidCsv(text: string): PaidRow[] {
  let records: Array<{ record: Record<string, string>; line: number }>;
  try {
    records = (parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true, info: true }) as Array<{ record: Record<string, string>; info: { lines: number } }>).map(
      ({ record, info }) => ({ record, line: info.lines }),
    );
  } catch (error) {
    throw new CliError(`the file is not valid CSV: ${(error as Error).message}`);
  }
  if (records.length === 0) throw new CliError('the file has no payout rows');
  for (const column of ['payout_id', 'advocate_id', 'amount']) {
    if (!(column in records[0]!.record)) throw new CliError(`the file has no ${column} column (expected ${PAYOUT_COLUMNS.join(',')})`);
  }
  return records.map(({ record, line }) => {
    const payoutId = record.payout_id ?? '';
    if (payoutId === '' || payoutId.length > 200) throw new CliError(`row ${line}: payout_id must be 1 to 200 characters`);
    if (!/^[1-9]\d{0,15}$/.test(record.advocate_id ?? '')) throw new CliError(`row ${line}: advocate_id must be a positive integer (got "${record.advocate_id}")`);
    const amount = Number(record.amount);
    // Its decimals are checked against the brand's currency (JPY 0, USD 2, KWD 3) when it is recorded.
    if (!/^\d{1,12}(\.\d{1,4})?$/.test(record.amount ?? '') || amount <= 0) {
      throw new CliError(`row ${line}: amount must be a positive amount such as 25.00 (got "${record.amount}")`);
    }
    return { row: line, payout_id: payoutId, advocate_id: Number(record.advocate_id), amount };
  });
}

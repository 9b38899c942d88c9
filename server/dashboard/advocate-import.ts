import { parse } from 'csv-parse/sync';
import type { ImportRefusal, ImportRow } from '../../core/advocates/advocate-imports';
import { Invalid } from '../../core/errors';
import { createAdvocateSchema } from '../schemas/advocate-request';

/** The most rows one file may hold. */
export const MAX_IMPORT_ROWS = 100_000;
/** 100,000 rows of email, names and code fit well within this. */
export const MAX_IMPORT_BYTES = 20 * 1_048_576;

/** A header as the merchant wrote it ("First name", "first-name", "FIRST_NAME") → first_name. */
const columnName = (header: string) => header.trim().toLowerCase().replace(/[\s-]+/g, '_');

/**
 * An advocates CSV (email, first_name, last_name, optional code; headers in any case, any order)
 * → the rows to create and the lines refused, each line checked by the same schema as
 * POST /api/v1/advocates. A file that is not CSV, has no email or first_name column, or holds more
 * than 100,000 rows is refused whole (400).
 */
export function parseAdvocatesCsv(text: string): { rows: ImportRow[]; refused: ImportRefusal[] } {
  let records: Array<{ record: Record<string, string>; info: { lines: number } }>;
  try {
    records = parse(text, { columns: (headers: string[]) => headers.map(columnName), skip_empty_lines: true, trim: true, bom: true, info: true, relax_column_count: true });
  } catch (error) {
    throw new Invalid(`file: not a CSV file we can read (${(error as Error).message})`);
  }
  if (records.length === 0) throw new Invalid('file: no advocate rows (the first line names the columns: email,first_name,last_name,code)');
  for (const column of ['email', 'first_name']) {
    if (!(column in records[0]!.record)) throw new Invalid(`file: no ${column} column (the first line names the columns: email,first_name,last_name,code)`);
  }
  if (records.length > MAX_IMPORT_ROWS) throw new Invalid(`file: ${records.length.toLocaleString('en-US')} rows; at most ${MAX_IMPORT_ROWS.toLocaleString('en-US')} per file`);
  const rows: ImportRow[] = [];
  const refused: ImportRefusal[] = [];
  for (const { record, info } of records) {
    const input = {
      email: record.email ?? '',
      first_name: record.first_name ?? '',
      ...(record.last_name ? { last_name: record.last_name } : {}),
      ...(record.code ? { code: record.code } : {}),
    };
    const checked = createAdvocateSchema.safeParse(input);
    if (checked.success) rows.push({ line: info.lines, ...checked.data });
    else {
      const issue = checked.error.issues[0]!;
      refused.push({ line: info.lines, field: String(issue.path[0] ?? 'row'), reason: issue.message });
    }
  }
  return { rows, refused };
}

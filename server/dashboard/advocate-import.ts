import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setImmediate } from 'node:timers/promises';
import { CsvError, parse } from 'csv-parse';
import type { ImportRefusal, ImportRow } from '../../core/advocates/advocate-imports';
import { Invalid } from '../../core/errors';
import { createAdvocateSchema } from '../schemas/advocate-request';
import { csvLineLimits } from './csv-line-limits';

/** The most rows one file may hold. */
export const MAX_IMPORT_ROWS = 100_000;
/** 100,000 rows of email, names and code fit well within this. */
export const MAX_IMPORT_BYTES = 20 * 1_048_576;

/** Lines checked in one turn of the event loop (a few milliseconds). */
const LINES_PER_TURN = 100;

/** A header as the merchant wrote it ("First name", "first-name", "FIRST_NAME") → first_name. */
const columnName = (header: string) => header.trim().toLowerCase().replace(/[\s-]+/g, '_');

/**
 * An advocates CSV (email, first_name, last_name, optional code; headers in any case, any order),
 * read as it arrives → the rows to create and the lines refused, each line checked by the same
 * schema as POST /api/v1/advocates. A file that is not CSV, has no email or first_name column,
 * holds more than 100,000 rows or breaks a line limit (csv-line-limits.ts) is refused whole (400),
 * as soon as that shows: the rest is not parsed.
 */
export async function readAdvocatesCsv(file: Readable): Promise<{ rows: ImportRow[]; refused: ImportRefusal[] }> {
  const rows: ImportRow[] = [];
  const refused: ImportRefusal[] = [];
  let columnAt = null as Map<string, number> | null;
  const lines = async (records: AsyncIterable<{ record: string[]; info: { lines: number } }>) => {
    for await (const { record, info } of records) {
      if (!columnAt) {
        columnAt = new Map(record.map((header, at) => [columnName(header), at]));
        for (const column of ['email', 'first_name']) {
          if (!columnAt.has(column)) throw new Invalid(`file: no ${column} column (the first line names the columns: email,first_name,last_name,code)`);
        }
        continue;
      }
      const read = rows.length + refused.length;
      // The bytes the upload's streams hold already would be checked in one turn of the event loop: other requests go between.
      if (read % LINES_PER_TURN === 0) await setImmediate();
      if (read === MAX_IMPORT_ROWS) throw new Invalid(`file: more than ${MAX_IMPORT_ROWS.toLocaleString('en-US')} rows; at most ${MAX_IMPORT_ROWS.toLocaleString('en-US')} per file`);
      const at = columnAt;
      const field = (name: string) => record[at.get(name) ?? -1] ?? '';
      const input = {
        email: field('email'),
        first_name: field('first_name'),
        ...(field('last_name') ? { last_name: field('last_name') } : {}),
        ...(field('code') ? { code: field('code') } : {}),
      };
      const checked = createAdvocateSchema.safeParse(input);
      if (checked.success) rows.push({ line: info.lines, ...checked.data });
      else {
        const issue = checked.error.issues[0]!;
        const name = String(issue.path[0] ?? 'row');
        refused.push({ line: info.lines, field: name, reason: issue.message, email: input.email, value: clip(String((input as Record<string, unknown>)[name] ?? '')) });
      }
    }
  };
  // A line the CSV rules cannot read (a quote inside an unquoted value) is refused alone; the rest is read.
  // (The parser reports them as it meets them, before the lines above it are checked: they are kept, then read.)
  const skipped: Array<{ error: CsvError; raw: string }> = [];
  const onSkip = (error: CsvError | undefined, raw: string | undefined): undefined => {
    if (error) skipped.push({ error, raw: raw ?? '' });
    return undefined;
  };
  try {
    await pipeline(
      file,
      csvLineLimits(),
      parse({ skip_empty_lines: true, trim: true, bom: true, info: true, relax_column_count: true, skip_records_with_error: true, raw: true, on_skip: onSkip }),
      lines,
    );
  } catch (error) {
    if (error instanceof CsvError) throw new Invalid(`file: not a CSV file we can read (${error.message})`);
    throw error;
  }
  if (!columnAt) throw new Invalid(skipped[0] ? `file: not a CSV file we can read (${skipped[0].error.message})` : 'file: choose the advocates file (CSV) to import');
  const emailAt = (columnAt as Map<string, number>).get('email') ?? 0;
  const unreadable = new Map<number, ImportRefusal>();
  for (const { error, raw } of skipped) {
    for (const refusal of unreadableLines(error, raw, emailAt)) {
      if (refusal.line === 1) throw new Invalid(`file: not a CSV file we can read (${error.message})`);
      // The parser may stop on one line more than once; the last stop read the most of it.
      if ((unreadable.get(refusal.line)?.value?.length ?? -1) < (refusal.value?.length ?? 0)) unreadable.set(refusal.line, refusal);
    }
  }
  const all = [...refused, ...unreadable.values()].sort((a, b) => a.line - b.line);
  if (rows.length + all.length === 0) throw new Invalid('file: no advocate rows (the first line names the columns: email,first_name,last_name,code)');
  return { rows, refused: all };
}

const clip = (text: string) => (text.length > 200 ? `${text.slice(0, 199)}…` : text);

/**
 * The lines of a record the parser could not read, refused in words: a quote inside a value that
 * does not start with one is that line's alone; a quote never closed took every line after it.
 */
function unreadableLines(error: CsvError, raw: string, emailAt: number): ImportRefusal[] {
  const text = raw.replace(/\r?\n$/, '');
  const lines = text.split(/\r?\n/);
  const last = Number((error as CsvError & { lines?: number }).lines ?? 0);
  const first = Math.max(1, last - lines.length + 1);
  const emailOf = (line: string) => line.split(',')[emailAt]?.replace(/"/g, '').trim() ?? '';
  if (error.code === 'CSV_QUOTE_NOT_CLOSED') {
    return lines.map((line, at) => ({
      line: first + at,
      field: 'row',
      reason: at === 0 ? 'a quote (") opened on this line is never closed, so this line and the ones after it could not be read' : `not read: the quote opened on line ${first} is never closed`,
      email: emailOf(line),
      value: clip(line),
    }));
  }
  return [
    {
      line: first,
      field: 'row',
      reason: 'a quote (") inside a value: put the whole value in quotes and double the quote inside, like "Bo ""the"" Bear"',
      email: emailOf(lines[0] ?? ''),
      value: clip(lines[0] ?? ''),
    },
  ];
}

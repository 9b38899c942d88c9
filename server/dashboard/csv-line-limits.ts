import { Transform } from 'node:stream';
import { Invalid } from '../../core/errors';

/** More columns than any merchant's export has: an advocates file needs 4, a paid file 6. */
export const MAX_CSV_COLUMNS = 50;
/** A line of 50 ordinary fields fits many times over; a field this long is no name, email or code. */
export const MAX_CSV_LINE_CHARS = 10_000;

const QUOTE = 0x22;
const COMMA = 0x2c;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Passes an uploaded CSV's bytes on unchanged, refusing it (Invalid, naming the line) as soon as
 * a line holds more than MAX_CSV_COLUMNS columns or MAX_CSV_LINE_CHARS characters — before the
 * CSV parser builds that line's fields: a file of one line of millions of empty columns is
 * refused after its first 50 commas. A line is a CSV record (a quoted line break continues it);
 * its number is the file line it starts on. With `maxRows`, a file of more rows than that after its
 * header line is refused as soon as the next one starts (blank lines not counted).
 */
export function csvLineLimits(maxRows = Number.POSITIVE_INFINITY): Transform {
  let quoted = false;
  let columns = 1;
  let chars = 0;
  let fileLine = 1;
  let recordLine = 1;
  let records = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      for (let at = 0; at < chunk.length; at += 1) {
        const byte = chunk[at]!;
        if (byte === QUOTE) quoted = !quoted; // an escaped quote ("") toggles twice
        else if (byte === LINE_FEED) {
          fileLine += 1;
          if (!quoted) {
            columns = 1;
            chars = 0;
            recordLine = fileLine;
            continue;
          }
        } else if (byte === COMMA && !quoted && ++columns > MAX_CSV_COLUMNS) {
          return done(new Invalid(`file: line ${recordLine} has more than ${MAX_CSV_COLUMNS} columns; a file may have at most ${MAX_CSV_COLUMNS} columns`));
        }
        // A record starts (a blank line is none): the header, then at most maxRows.
        if (chars === 0 && byte !== CARRIAGE_RETURN && ++records > maxRows + 1) {
          return done(new Invalid(`file: more than ${maxRows.toLocaleString('en-US')} rows; at most ${maxRows.toLocaleString('en-US')} per file`));
        }
        // A UTF-8 continuation byte is part of the character before it.
        if ((byte & 0xc0) !== 0x80 && ++chars > MAX_CSV_LINE_CHARS) {
          return done(new Invalid(`file: line ${recordLine} is longer than ${MAX_CSV_LINE_CHARS.toLocaleString('en-US')} characters; a line may have at most ${MAX_CSV_LINE_CHARS.toLocaleString('en-US')}`));
        }
      }
      done(null, chunk);
    },
  });
}

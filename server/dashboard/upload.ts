import { PassThrough, type Readable } from 'node:stream';
import busboy from 'busboy';
import type { Ctx } from '../app-context';
import { HttpError } from '../http-error';
import { csvLineLimits } from './csv-line-limits';

/** A form with one file (multipart/form-data): its fields, and the file's name and what was read from it. */
export interface Upload<T> {
  fields: URLSearchParams;
  /** `read()` gives what the file was read into, or throws why it could not be (in the form's action, after its CSRF check). */
  file: { name: string; read: () => T } | null;
}

/** The form's other parts around the file: at most 20 fields of 10,000 bytes, their headers and boundaries. */
const FORM_ALLOWANCE_BYTES = 256 * 1024;

/** A file's bytes as text: for a file small enough (a few MiB) to parse at once. */
async function fileText(file: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of file) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A small CSV's text, read through the same line limits as the advocates import (and at most
 * `maxRows` rows): a file the CSV parser would spend seconds on in one go is refused as it arrives.
 */
export function limitedCsvText(maxRows: number): (file: Readable) => Promise<string> {
  return (file) => fileText(file.pipe(csvLineLimits(maxRows)));
}

/**
 * Reads a dashboard upload with busboy (the streaming multipart parser multer is built on): one
 * file of at most `maxBytes`, read as it arrives by `readFile` (a parser that refuses early stops
 * reading it; the rest of the file is passed over), a few small fields. Past the limit — a larger
 * Content-Length, or a body that grows past it — the answer is a 413 naming the limit at once: the
 * rest of the body is not read, and the connection is closed after the answer.
 */
export function readUpload<T>(ctx: Ctx, maxBytes: number, readFile: (file: Readable) => Promise<T>): Promise<Upload<T>> {
  const type = ctx.get('Content-Type');
  if (!type.startsWith('multipart/form-data')) {
    return Promise.reject(new HttpError(400, 'file: send the form as multipart/form-data (choose a file and press the button)'));
  }
  const tooLarge = new HttpError(413, `file: the file is larger than ${Math.round(maxBytes / 1_048_576)} MiB`, { Connection: 'close' });
  const maxBodyBytes = maxBytes + FORM_ALLOWANCE_BYTES;
  if (Number(ctx.get('Content-Length') || 0) > maxBodyBytes) return Promise.reject(tooLarge);
  return new Promise((resolve, reject) => {
    const fields = new URLSearchParams();
    let file: Promise<Upload<T>['file']> = Promise.resolve(null);
    const parser = busboy({ headers: ctx.req.headers, limits: { files: 1, fields: 20, fieldSize: 10_000, fileSize: maxBytes } });
    let bodyBytes = 0;
    let content: PassThrough | null = null;
    const countBytes = (chunk: Buffer) => {
      bodyBytes += chunk.length;
      if (bodyBytes > maxBodyBytes) stopReading();
    };
    const stopReading = () => {
      ctx.req.off('data', countBytes).unpipe(parser).pause();
      content?.destroy();
      reject(tooLarge);
    };
    parser.on('field', (name, value) => fields.append(name, value));
    parser.on('file', (_name, stream, info) => {
      const name = info.filename ?? 'upload.csv';
      // The reader gets its own stream: when it stops early, busboy's is still drained, so the form's other parts are read.
      content = new PassThrough();
      stream.on('limit', stopReading).pipe(content);
      file = readFile(content).then(
        (value) => ({ name, read: () => value }),
        (error: unknown) => {
          stream.unpipe(content!).resume();
          return {
            name,
            read: () => {
              throw error;
            },
          };
        },
      );
    });
    parser.on('error', (error) => reject(new HttpError(400, `file: the upload could not be read (${(error as Error).message})`)));
    parser.on('close', () => {
      file.then((read) => resolve({ fields, file: read }), reject);
    });
    ctx.req.on('data', countBytes).pipe(parser);
  });
}

import busboy from 'busboy';
import type { Ctx } from '../app-context';
import { HttpError } from '../http-error';

/** A form with one file (multipart/form-data): its fields, and the file's name and text. */
export interface Upload {
  fields: URLSearchParams;
  file: { name: string; text: string } | null;
}

/**
 * Reads a dashboard upload with busboy (the streaming multipart parser multer is built on): one
 * file of at most `maxBytes`, a few small fields. A larger file is a 413 naming the limit, read
 * no further.
 */
export function readUpload(ctx: Ctx, maxBytes: number): Promise<Upload> {
  const type = ctx.get('Content-Type');
  if (!type.startsWith('multipart/form-data')) {
    return Promise.reject(new HttpError(400, 'file: send the form as multipart/form-data (choose a file and press the button)'));
  }
  return new Promise((resolve, reject) => {
    const fields = new URLSearchParams();
    let file: Upload['file'] = null;
    let tooLarge = false;
    const parser = busboy({ headers: ctx.req.headers, limits: { files: 1, fields: 20, fieldSize: 10_000, fileSize: maxBytes } });
    parser.on('field', (name, value) => fields.append(name, value));
    parser.on('file', (_name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        tooLarge = true;
      });
      stream.on('close', () => {
        file = { name: info.filename ?? 'upload.csv', text: Buffer.concat(chunks).toString('utf8') };
      });
    });
    parser.on('error', (error) => reject(new HttpError(400, `file: the upload could not be read (${(error as Error).message})`)));
    parser.on('close', () => {
      if (tooLarge) reject(new HttpError(413, `file: the file is larger than ${Math.round(maxBytes / 1_048_576)} MiB`));
      else resolve({ fields, file });
    });
    ctx.req.pipe(parser);
  });
}

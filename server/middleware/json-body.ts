import type { IncomingMessage } from 'node:http';
import type { Middleware } from '../app-context';
import { HttpError } from '../http-error';

export const MAX_BODY_BYTES = 1024 * 1024;

/** Reads the raw body (kept as bytes for signature checks), at most 1 MiB, without parsing it. */
export const readRawBody: Middleware = async (ctx, next) => {
  if (ctx.method !== 'POST' && ctx.method !== 'PUT' && ctx.method !== 'PATCH') return next();
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > MAX_BODY_BYTES) throw new HttpError(413, `request body exceeds ${MAX_BODY_BYTES} bytes`);
  ctx.state.rawBody = await bodyOf(ctx.req);
  return next();
};

/**
 * The request's bytes, by its stream's events (an async iterator costs more per request on the
 * ingest path); past MAX_BODY_BYTES the rest is drained, so the 413 can still be written.
 */
function bodyOf(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        done();
        request.resume();
        reject(new HttpError(413, `request body exceeds ${MAX_BODY_BYTES} bytes`));
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    // A client that goes away mid-body ('error', or a close without 'end'): the request's fault,
    // answered 400 (to nobody) and logged as such, not taken for the database's socket errors.
    const cutOff = () => {
      done();
      reject(new HttpError(400, 'the request body ended before Content-Length or its last chunk'));
    };
    const done = () => {
      request.off('data', onData).off('end', onEnd).off('error', cutOff).off('close', cutOff);
    };
    request.on('data', onData).on('end', onEnd).on('error', cutOff).on('close', cutOff);
  });
}

/** Deeper than any payload we accept needs; bounded so no recursive walk of the value can overflow the stack. */
export const MAX_JSON_DEPTH = 32;

/** The deepest nesting of objects and arrays in JSON text, counted without recursion (strings skipped). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') deepest = Math.max(deepest, ++depth);
    else if (char === '}' || char === ']') depth -= 1;
  }
  return deepest;
}

/**
 * Whether the text has more than `depth` opening brackets at all, counted by the native indexOf:
 * a body with fewer cannot nest deeper, and the character-by-character walk of jsonDepth (the
 * costlier part of reading an order's body) is skipped. Brackets inside strings count too: a
 * false "may" only costs the walk.
 */
function mayNestDeeperThan(text: string, depth: number): boolean {
  let brackets = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) {
      if (++brackets > depth) return true;
    }
  }
  return false;
}

/** A body every field of which is optional: empty is `{}`, anything else must be a JSON object. */
export function parseOptionalJsonObject(raw: Buffer | undefined): Record<string, unknown> {
  return raw && raw.length > 0 ? parseJsonObject(raw) : {};
}

/** Parses the raw body as one JSON object; anything else is a 400. */
export function parseJsonObject(raw: Buffer | undefined): Record<string, unknown> {
  const text = raw?.toString('utf8') ?? '';
  if (text.trim() === '') throw new HttpError(400, 'request body must be a JSON object');
  if (mayNestDeeperThan(text, MAX_JSON_DEPTH) && jsonDepth(text) > MAX_JSON_DEPTH) throw new HttpError(400, `request body is nested more than ${MAX_JSON_DEPTH} levels deep`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'request body is not valid JSON');
  }
  // PostgreSQL text cannot hold NUL; refuse it here rather than fail deep in a write.
  if (text.includes('\u0000') || text.includes('\\u0000')) throw new HttpError(400, 'request body must not contain NUL characters');
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new HttpError(400, 'request body must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

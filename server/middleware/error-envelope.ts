import { ZodError } from 'zod';
import { Conflict, DomainError, Forbidden, Invalid, NotFound, Unprocessable } from '../../core/errors';
import type { Ctx, Middleware } from '../app-context';
import { defaultErrorCode, HttpError } from '../http-error';
import { describeZodError } from '../schemas/describe-zod-error';
import { MAX_IDENTIFIER_BYTES } from '../schemas/fields';
import { isDatabaseOutage } from './database-outage';

/** How long a caller should wait before retrying after a database outage. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

function statusOf(error: DomainError): number {
  if (error instanceof Invalid) return 400;
  if (error instanceof Forbidden) return 403;
  if (error instanceof NotFound) return 404;
  if (error instanceof Conflict) return 409;
  if (error instanceof Unprocessable) return 422;
  return 500;
}

/**
 * A value PostgreSQL refused, as a sentence, or null: SQLSTATE class 22 (numeric out of range, bad
 * encoding, ...), 54000 (an index entry too large: an id a schema limit missed) and 23514 (a CHECK
 * constraint a schema bound missed). The caller's input.
 */
function refusedValue(error: unknown): string | null {
  const { code, table, constraint } = (error ?? {}) as { code?: unknown; table?: unknown; constraint?: unknown };
  if (code === '54000') return `a value is too long to be stored: identifiers must be at most ${MAX_IDENTIFIER_BYTES} bytes`;
  if (code === '23514') return outOfRange(table, constraint);
  if (typeof code === 'string' && code.startsWith('22')) return `invalid value: ${(error as Error).message.split(' - ').pop()}`;
  return null;
}

/** A CHECK constraint's refusal, naming what it guards when its name tells: PostgreSQL's <table>_<column>_check, or money_amount's. */
function outOfRange(table: unknown, constraint: unknown): string {
  if (constraint === 'money_amount_check') return 'an amount is out of range: money has at most 12 digits before the point and 4 decimals';
  const prefix = `${String(table)}_`;
  const column = typeof constraint === 'string' && constraint.startsWith(prefix) ? /^(.+)_check$/.exec(constraint.slice(prefix.length))?.[1] : undefined;
  return `${column ?? 'a value'} is out of the range it may hold`;
}

/** What an error answers: status, message, stable code, extra body fields and headers. */
export interface ErrorAnswer {
  status: number;
  error: string;
  code: string;
  extra: Record<string, unknown>;
  headers: Record<string, string>;
}

/** The one mapping of a thrown error to its answer (logged here when it is ours to fix); the envelope and the dashboard's error page render it. */
export function errorAnswer(ctx: Ctx, error: unknown): ErrorAnswer {
  const answer = (status: number, message: string, code: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => ({
    status,
    error: message,
    code,
    extra,
    headers,
  });
  const refused = refusedValue(error);
  if (error instanceof HttpError) return answer(error.status, error.message, error.code, {}, error.headers);
  if (error instanceof ZodError) return answer(400, describeZodError(error), 'invalid_request');
  if (error instanceof DomainError) return answer(statusOf(error), error.message, error.code, error.details);
  if (isDatabaseOutage(error)) {
    // Not the caller's fault and not a bug: retrying is safe (a stored repeat is answered as a duplicate).
    ctx.app.context.deps.logger.warn({ err: error, path: ctx.path }, 'database unavailable');
    return answer(503, 'the database is unavailable; retry later', 'database_unavailable', {}, { 'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS) });
  }
  if (refused !== null) return answer(400, refused, 'invalid_request');
  ctx.app.context.deps.logger.error({ err: error, path: ctx.path }, 'unhandled error');
  return answer(500, 'Internal server error', 'internal_error');
}

function refuse(ctx: Ctx, status: number, error: string, code: string, extra: Record<string, unknown> = {}): void {
  ctx.status = status;
  ctx.body = { success: false, error, code, ...extra };
}

/** The one place errors become HTTP: `{success: false, error, code}` with the right status. */
export const errorEnvelope: Middleware = async (ctx, next) => {
  try {
    await next();
    // A router's own 404/405 carries no body of ours: give it the envelope too.
    if (ctx.status >= 400 && ctx.body === undefined) {
      const status = ctx.status;
      refuse(ctx, status, status === 404 ? `no route for ${ctx.method} ${ctx.path}` : `${ctx.method} is not allowed on ${ctx.path}`, defaultErrorCode(status));
    }
  } catch (error) {
    const answer = errorAnswer(ctx, error);
    ctx.set(answer.headers);
    refuse(ctx, answer.status, answer.error, answer.code, answer.extra);
  }
};

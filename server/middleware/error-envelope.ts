import { ZodError } from 'zod';
import { Conflict, DomainError, Forbidden, Invalid, NotFound, Unauthorized } from '../../core/errors';
import type { Middleware } from '../app-context';
import { HttpError } from '../http-error';
import { describeZodError } from '../schemas/describe-zod-error';

function statusOf(error: DomainError): number {
  if (error instanceof Invalid) return 400;
  if (error instanceof Unauthorized) return 401;
  if (error instanceof Forbidden) return 403;
  if (error instanceof NotFound) return 404;
  if (error instanceof Conflict) return 409;
  return 500;
}

/** SQLSTATE class 22: data exception (numeric out of range, invalid text representation, ...). */
function isPostgresDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('22');
}

/** The one place errors become HTTP: `{success: false, error}` with the right status. */
export const errorEnvelope: Middleware = async (ctx, next) => {
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      ctx.status = 404;
      ctx.body = { success: false, error: `no route for ${ctx.method} ${ctx.path}` };
    }
  } catch (error) {
    if (error instanceof HttpError) {
      ctx.status = error.status;
      ctx.set(error.headers);
      ctx.body = { success: false, error: error.message };
    } else if (error instanceof ZodError) {
      ctx.status = 400;
      ctx.body = { success: false, error: describeZodError(error) };
    } else if (error instanceof DomainError) {
      ctx.status = statusOf(error);
      ctx.body = { success: false, error: error.message, ...error.details };
    } else if (isPostgresDataError(error)) {
      // A value PostgreSQL refused (out of range, bad encoding): the caller's input, not our fault.
      ctx.status = 400;
      ctx.body = { success: false, error: `invalid value: ${(error as Error).message.split(' - ').pop()}` };
    } else {
      ctx.app.context.deps.logger.error({ err: error, path: ctx.path }, 'unhandled error');
      ctx.status = 500;
      ctx.body = { success: false, error: 'Internal server error' };
    }
  }
};

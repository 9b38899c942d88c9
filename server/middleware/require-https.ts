import type { Middleware } from '../app-context';
import { HttpError } from '../http-error';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * TLS, or a trusted proxy's X-Forwarded-Proto https (ctx.secure under app.proxy), or a developer's
 * own machine (loopback). Anything else is refused before it is read.
 */
export const requireHttps: Middleware = async (ctx, next) => {
  if (!ctx.secure && !LOOPBACK.has(ctx.ip)) throw new HttpError(403, 'HTTPS is required', {}, 'https_required');
  return next();
};

import type { Middleware } from '../app-context';

/** One structured log line per request: method, path, status, duration, brand. */
export const requestLog: Middleware = async (ctx, next) => {
  const started = process.hrtime.bigint();
  try {
    await next();
  } finally {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    ctx.app.context.deps.logger.info(
      { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10, brand_id: ctx.state.brand?.brand_id },
      'request',
    );
  }
};

import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { isEmbedded } from '../../core/db/create-database';
import type { AppDeps, Middleware } from '../app-context';
import type { RateLimits } from '../config';
import { HttpError } from '../http-error';

type Endpoint = keyof RateLimits;
type Limiter = RateLimiterMemory | RateLimiterPostgres;

const MINUTE = { seconds: 60, name: 'minute' };
const HOUR = { seconds: 3600, name: 'hour' };

/** The spec's windows: visits, eligibility and /convert per minute; claims, conversions, refunds per hour; reviews (ours) per minute. */
export const WINDOWS: Record<Endpoint, { seconds: number; name: string }> = {
  visit: MINUTE,
  claim: HOUR,
  conversion: HOUR,
  refund: HOUR,
  eligibility: MINUTE,
  convert: MINUTE,
  rewards: MINUTE,
  review: MINUTE,
};

/**
 * Counters in PostgreSQL (table rate_limits) so every instance on one database shares them; in
 * memory on the embedded PGlite, which one process owns. If PostgreSQL fails, the in-memory
 * insurance limiter keeps limiting per instance instead of failing the request.
 */
function buildLimiter(deps: AppDeps, endpoint: Endpoint): Limiter {
  const options = { keyPrefix: endpoint, points: deps.config.rateLimits[endpoint], duration: WINDOWS[endpoint].seconds };
  if (isEmbedded(deps.db)) return new RateLimiterMemory(options);
  return new RateLimiterPostgres({
    ...options,
    storeClient: deps.db,
    storeType: 'knex',
    tableName: 'rate_limits',
    tableCreated: true, // created by migration 20261124_0003_rate_limits
    insuranceLimiter: new RateLimiterMemory(options),
  });
}

// One set of limiters per app instance, built on first use; keyed weakly so a closed app is freed.
const limitersByApp = new WeakMap<object, Map<Endpoint, Limiter>>();

function limiterFor(app: object, deps: AppDeps, endpoint: Endpoint): Limiter {
  let limiters = limitersByApp.get(app);
  if (!limiters) limitersByApp.set(app, (limiters = new Map()));
  let limiter = limiters.get(endpoint);
  if (!limiter) limiters.set(endpoint, (limiter = buildLimiter(deps, endpoint)));
  return limiter;
}

function rateLimitHeaders(limit: number, state: RateLimiterRes): Record<string, string> {
  return {
    'RateLimit-Limit': String(limit),
    'RateLimit-Remaining': String(state.remainingPoints),
    'RateLimit-Reset': String(secondsUntilReset(state)),
  };
}

function secondsUntilReset(state: RateLimiterRes): number {
  return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
}

/**
 * Limits requests per client IP (ctx.ip: the socket address, or X-Forwarded-For's client under
 * TRUST_PROXY=true) on one endpoint. Placed before the body is read, so a refused client costs
 * one counter update. Every answer carries RateLimit-* headers; a 429 adds Retry-After.
 */
export function rateLimit(endpoint: Endpoint): Middleware {
  return async (ctx, next) => {
    const limiter = limiterFor(ctx.app, ctx.app.context.deps, endpoint);
    const limit = limiter.points;
    let state: RateLimiterRes;
    try {
      state = await limiter.consume(ctx.ip || 'unknown');
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfter = secondsUntilReset(rejection);
      throw new HttpError(
        429,
        `rate limit exceeded: at most ${limit} requests per ${WINDOWS[endpoint].name} from one IP to ${ctx.path}; retry after ${retryAfter} s`,
        { ...rateLimitHeaders(limit, rejection), 'Retry-After': String(retryAfter) },
        'rate_limited',
      );
    }
    ctx.set(rateLimitHeaders(limit, state));
    return next();
  };
}

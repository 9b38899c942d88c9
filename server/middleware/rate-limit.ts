import { isEmbedded } from '../../core/db/create-database';
import type { AppDeps, Middleware } from '../app-context';
import { DEFAULT_RATE_LIMIT_SYNC_MS, type RateLimits } from '../config';
import { HttpError } from '../http-error';
import { SyncedWindowCounts } from '../rate-limits/synced-window-counts';
import type { Decision } from '../rate-limits/window-counts';

type Endpoint = keyof RateLimits;

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
  signIn: HOUR,
  join: HOUR,
};

/**
 * Counted in memory and synced with PostgreSQL (table rate_limits) in the background, so every
 * instance on one database shares the counts without a round trip per request; on the embedded
 * PGlite, which one process owns, in memory only. See docs/development/decisions.md, "Rate limits".
 */
function buildCounts(deps: AppDeps): SyncedWindowCounts {
  return new SyncedWindowCounts({
    db: isEmbedded(deps.db) ? null : deps.db,
    intervalMs: deps.config.rateLimitSyncMs ?? DEFAULT_RATE_LIMIT_SYNC_MS,
    logger: deps.logger,
  });
}

// One set of counts per app instance, built on first use; keyed weakly so a closed app is freed.
const countsByApp = new WeakMap<object, SyncedWindowCounts>();

function countsFor(app: object, deps: AppDeps): SyncedWindowCounts {
  let counts = countsByApp.get(app);
  if (!counts) countsByApp.set(app, (counts = buildCounts(deps)));
  return counts;
}

/** Shares every count this app has not synced yet and reads back the totals, now. */
export async function flushRateLimits(app: object): Promise<void> {
  await countsByApp.get(app)?.flush();
}

/** Shares the last counts and stops syncing; shutdown calls it once the last request is answered. */
export async function closeRateLimits(app: object): Promise<void> {
  await countsByApp.get(app)?.close();
}

function rateLimitHeaders(decision: Decision): Record<string, string> {
  return {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
  };
}

/**
 * Limits requests per client IP (ctx.ip: the socket address, or X-Forwarded-For's client under
 * TRUST_PROXY=true) on one endpoint. Placed before the body is read, so a refused client costs
 * one count in memory. Every answer carries RateLimit-* headers; a 429 adds Retry-After.
 */
export function rateLimit(endpoint: Endpoint): Middleware {
  const window = WINDOWS[endpoint];
  return async (ctx, next) => {
    const { deps } = ctx.app.context;
    const limit = deps.config.rateLimits[endpoint];
    // The key is rate-limiter-flexible's (`prefix:ip`): the rows stay the same ones across the change.
    const decision = await countsFor(ctx.app, deps).hit(`${endpoint}:${ctx.ip || 'unknown'}`, limit, window.seconds * 1000);
    if (!decision.allowed) {
      throw new HttpError(
        429,
        `rate limit exceeded: at most ${limit} requests per ${window.name} from one IP to ${ctx.path}; retry after ${decision.resetSeconds} s`,
        { ...rateLimitHeaders(decision), 'Retry-After': String(decision.resetSeconds) },
        'rate_limited',
      );
    }
    ctx.set(rateLimitHeaders(decision));
    return next();
  };
}

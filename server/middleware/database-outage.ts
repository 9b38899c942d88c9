/** Socket errors of a database that cannot be reached (node's `error.code`). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs of an outage rather than a bad query: class 08 (connection exception), 57P01-57P03
 * (admin or crash shutdown, cannot connect now) and class 53 (too many connections, out of resources).
 */
function isOutageSqlState(code: string): boolean {
  return /^08/.test(code) || code === '57P01' || code === '57P02' || code === '57P03' || /^53/.test(code);
}

/** pg and knex say "the connection went away" in words, with no code. */
const LOST_CONNECTION = /Connection terminated|Connection ended unexpectedly|not queryable|Timeout acquiring a connection/i;

/**
 * True when the error says the database is down or unreachable (worth retrying later), not that
 * the request or our code is wrong. Follows `cause` and AggregateError's `errors` (dual-stack connects).
 */
export function isDatabaseOutage(error: unknown): boolean {
  const pending: unknown[] = [error];
  for (let seen = 0; pending.length > 0 && seen < 20; seen += 1) {
    const candidate = pending.shift();
    if (candidate === null || typeof candidate !== 'object') continue;
    const { code, name, message, cause, errors } = candidate as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || isOutageSqlState(code))) return true;
    if (name === 'KnexTimeoutError') return true;
    if (typeof message === 'string' && LOST_CONNECTION.test(message)) return true;
    pending.push(cause, ...(Array.isArray(errors) ? errors : []));
  }
  return false;
}

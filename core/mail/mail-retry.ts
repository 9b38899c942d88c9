/**
 * Seconds to wait after the n-th failed attempt to hand a message to the SMTP server (a refused
 * connection, a timeout, a 4xx): 30 s, 1, 2, 5, 10, 15 min, then every 30 min, for 3 days; then the
 * message is failed. Each wait gets ±20 % jitter. An outage of an hour costs at most 30 minutes
 * after it ends, and a message that waited on one is sent before any later one to its address.
 */
const FIRST_DELAYS_SECONDS = [30, 60, 120, 300, 600, 900] as const;
const STEADY_DELAY_SECONDS = 1_800;
export const MAIL_RETRY_FOR_SECONDS = 3 * 24 * 3_600;

/** The wait after `attempts` failed attempts, or null once the message has been retried for three days. `scale` shrinks it (tests). */
export function mailRetryDelaySeconds(attempts: number, scale = 1, random: () => number = Math.random): number | null {
  const elapsed = FIRST_DELAYS_SECONDS.slice(0, attempts - 1).reduce((sum, delay) => sum + delay, 0) + Math.max(0, attempts - 1 - FIRST_DELAYS_SECONDS.length) * STEADY_DELAY_SECONDS;
  if (elapsed >= MAIL_RETRY_FOR_SECONDS) return null;
  const base = FIRST_DELAYS_SECONDS[attempts - 1] ?? STEADY_DELAY_SECONDS;
  return base * scale * (0.8 + 0.4 * random());
}

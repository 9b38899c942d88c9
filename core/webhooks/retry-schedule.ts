/**
 * Seconds to wait after the n-th failed attempt (index n-1): 1 min, 5 min, 30 min, 2 h, 5 h, 10 h,
 * 14 h. With the first attempt that makes 8 attempts over about 31.6 hours; the 8th failure marks
 * the delivery `failed`. Each wait gets ±20 % jitter so a recovering receiver is not hit by every
 * retry in the same second.
 */
export const RETRY_DELAYS_SECONDS = [60, 300, 1_800, 7_200, 18_000, 36_000, 50_400] as const;

export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** The wait after `attempts` failed attempts, or null when the delivery has had them all. `scale` shrinks it (tests). */
export function retryDelaySeconds(attempts: number, scale = 1, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_SECONDS[attempts - 1];
  if (base === undefined) return null;
  return base * scale * (0.8 + 0.4 * random());
}

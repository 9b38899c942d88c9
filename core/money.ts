/**
 * Exact money: amounts travel as JSON numbers in major units, are computed as integer minor
 * units (cents), and are stored as numeric(14,2). Floats are never accumulated.
 */
import { Invalid } from './errors';

export type Cents = number;

const MAX_CENTS = 999_999_999_999_99; // numeric(14,2)

/** value × 10^places without binary noise: 19.99 × 100 → 1999 (not 1998.9999999999998). */
function scaled(value: number, places: number): number {
  return Number((value * 10 ** places).toPrecision(15));
}

/** True when `value` has at most `places` decimals (binary noise aside: 19.99 has two). */
export function hasAtMostDecimals(value: number, places: number): boolean {
  return Number.isFinite(value) && Number.isInteger(scaled(value, places));
}

/**
 * An amount is a whole number of minor units: at most two decimals (1e-9 and 0.001 are not).
 * The one rule every amount a caller sends must pass.
 */
export function isWholeCents(amount: number): boolean {
  return hasAtMostDecimals(amount, 2);
}

/** Percentages (discount and reward rates) are counted in 1/10,000 of a percent: at most 4 decimals. */
export const PERCENT_DECIMALS = 4;

/**
 * 19.99 → 1999. Rounds half away from zero at the cent, after undoing binary noise (1.005).
 * An amount beyond numeric(14,2) (a caller's total plus its discount, say) is the input's fault: Invalid.
 */
export function toCents(amount: number): Cents {
  const hundredfold = scaled(amount, 2);
  const cents = Math.sign(hundredfold) * Math.round(Math.abs(hundredfold));
  if (!Number.isSafeInteger(cents) || Math.abs(cents) > MAX_CENTS) {
    throw new Invalid(`amount ${amount} is out of range (at most ${decimalFromCents(MAX_CENTS)})`);
  }
  return cents === 0 ? 0 : cents;
}

/** A numeric column value ("19.99") → 1999, exactly. */
export function centsFromDecimal(value: string | number | null | undefined): Cents {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'number') return toCents(value);
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (!match) throw new RangeError(`not a decimal: ${value}`);
  const [, sign, whole, fraction = ''] = match;
  const padded = (fraction + '000').slice(0, 3);
  let cents = Number(whole) * 100 + Number(padded.slice(0, 2));
  if (Number(padded[2]) >= 5) cents += 1;
  return sign === '-' ? -cents : cents;
}

/** 1999 → "19.99", the exact text handed to a numeric(14,2) column. */
export function decimalFromCents(cents: Cents): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** 1999 → 19.99, for JSON responses. */
export function amountFromCents(cents: Cents): number {
  return Number(decimalFromCents(cents));
}

/** A numeric column value → a JSON number in major units. */
export function amountFromDecimal(value: string | number | null | undefined): number {
  return amountFromCents(centsFromDecimal(value));
}

/**
 * `cents × numerator / denominator`, rounded half up, in integer arithmetic
 * (used for percentages and pro-rata reversals).
 */
export function prorate(cents: Cents, numerator: number, denominator: number): Cents {
  if (denominator === 0) return 0;
  const n = BigInt(cents) * BigInt(numerator);
  const d = BigInt(denominator);
  const quotient = n / d;
  const remainder = n % d;
  const roundUp = remainder * 2n >= d ? 1n : 0n;
  return Number(quotient + roundUp);
}

/** `percent` % of `cents` (percent may have up to four decimals: 12.5 → 12.5 %). */
export function percentOf(cents: Cents, percent: number): Cents {
  const basisPoints = Math.round(percent * 10 ** PERCENT_DECIMALS); // 1 % = 10_000
  return prorate(cents, basisPoints, 1_000_000);
}

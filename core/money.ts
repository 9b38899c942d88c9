/**
 * Exact money: amounts travel as JSON numbers in major units, are computed as integer minor units
 * of their currency (10^exponent per major unit: JPY 0, USD 2, KWD 3; see core/currency.ts), and
 * are stored as numeric text with that many decimals. Floats are never accumulated.
 */
import { Invalid } from './errors';

/** An integer count of a currency's minor units (cents, yen, fils). */
export type Minor = number;

/** The most decimals ISO 4217 gives a currency (CLF, UYW); the money columns keep this many. */
export const MAX_EXPONENT = 4;
/** Twelve digits before the point, as numeric(14,2) allowed. */
const MAX_MAJOR = 999_999_999_999;

/** value × 10^places without binary noise: 19.99 × 100 → 1999 (not 1998.9999999999998). */
function scaled(value: number, places: number): number {
  return Number((value * 10 ** places).toPrecision(15));
}

/** True when `value` has at most `places` decimals (binary noise aside: 19.99 has two). */
export function hasAtMostDecimals(value: number, places: number): boolean {
  return Number.isFinite(value) && Number.isInteger(scaled(value, places));
}

/** The fewest decimals `value` is written with, up to MAX_EXPONENT (12.5 → 1, 12.345 → 3). */
export function decimalsOf(value: number): number {
  let places = 0;
  while (places < MAX_EXPONENT && !hasAtMostDecimals(value, places)) places += 1;
  return places;
}

/** Percentages (discount and reward rates) are counted in 1/10,000 of a percent: at most 4 decimals. */
export const PERCENT_DECIMALS = 4;

/** The largest amount a money column holds, in minor units of a currency with `exponent` decimals. */
export function maxMinor(exponent: number): Minor {
  return Math.min(MAX_MAJOR * 10 ** exponent + (10 ** exponent - 1), Number.MAX_SAFE_INTEGER);
}

/**
 * 19.99 → 1999 at exponent 2. Rounds half away from zero at the minor unit, after undoing binary
 * noise (1.005). An amount beyond twelve digits is the input's fault: Invalid.
 */
export function toMinor(amount: number, exponent: number): Minor {
  const multiplied = scaled(amount, exponent);
  const minor = Math.sign(multiplied) * Math.round(Math.abs(multiplied));
  if (!Number.isSafeInteger(minor) || Math.abs(minor) > maxMinor(exponent)) {
    throw new Invalid(`amount ${amount} is out of range (at most ${decimalFromMinor(maxMinor(exponent), exponent)})`);
  }
  return minor === 0 ? 0 : minor;
}

/** toMinor for an amount a caller sent: more decimals than the currency has → Invalid naming `field`. */
export function exactMinor(amount: number, exponent: number, field: string, currency: string): Minor {
  if (!hasAtMostDecimals(amount, exponent)) throw new Invalid(`${field}: ${minorUnitRule(exponent, currency)}`);
  return toMinor(amount, exponent);
}

/** The rule an amount breaks when it has too many decimals, as a sentence. */
export function minorUnitRule(exponent: number, currency: string): string {
  if (exponent === 2) return 'must be a whole number of cents (at most 2 decimals)';
  if (exponent === 0) return `must be a whole number of ${currency} (no decimals)`;
  return `must be a whole number of ${currency} minor units (at most ${exponent} decimals)`;
}

/** A numeric column value ("19.99") → 1999 at exponent 2, exactly; digits past the exponent round half up. */
export function minorFromDecimal(value: string | number | null | undefined, exponent: number): Minor {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'number') return toMinor(value, exponent);
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (!match) throw new RangeError(`not a decimal: ${value}`);
  const [, sign, whole, fraction = ''] = match;
  const padded = fraction.padEnd(exponent + 1, '0');
  let minor = Number(whole) * 10 ** exponent + Number(padded.slice(0, exponent) || '0');
  if (Number(padded[exponent]) >= 5) minor += 1;
  return sign === '-' && minor !== 0 ? -minor : minor;
}

/** 1999 → "19.99" at exponent 2, 1500 → "1500" at 0: the exact text handed to a numeric column. */
export function decimalFromMinor(minor: Minor, exponent: number): string {
  const sign = minor < 0 ? '-' : '';
  const digits = String(Math.abs(minor)).padStart(exponent + 1, '0');
  if (exponent === 0) return `${sign}${digits}`;
  return `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/** 1999 → 19.99 at exponent 2, for JSON responses. */
export function amountFromMinor(minor: Minor, exponent: number): number {
  return Number(decimalFromMinor(minor, exponent));
}

/** A numeric column value → a JSON number in major units (the column already has the currency's decimals). */
export function amountFromDecimal(value: string | number | null | undefined): number {
  if (value === null || value === undefined) return 0;
  return Number(value);
}

/** n / d rounded half up (d > 0), as a number of minor units. */
function divideHalfUp(n: bigint, d: bigint): Minor {
  const negative = n < 0n;
  const abs = negative ? -n : n;
  const quotient = abs / d + ((abs % d) * 2n >= d ? 1n : 0n);
  return Number(negative ? -quotient : quotient);
}

/**
 * `minor × numerator / denominator`, rounded half up, in integer arithmetic
 * (used for percentages and pro-rata reversals).
 */
export function prorate(minor: Minor, numerator: number, denominator: number): Minor {
  if (denominator === 0) return 0;
  return divideHalfUp(BigInt(minor) * BigInt(numerator), BigInt(denominator));
}

/** A percentage in 1/10,000 of a percent: 12.5 → 125,000 (1 % = 10,000). */
function basisPoints(percent: number): number {
  return Math.round(percent * 10 ** PERCENT_DECIMALS);
}

/** `percent` % of `minor` (percent may have up to four decimals: 12.5 → 12.5 %). */
export function percentOf(minor: Minor, percent: number): Minor {
  return prorate(minor, basisPoints(percent), 100 * 10 ** PERCENT_DECIMALS);
}

/** An exchange rate as an exact decimal: `units / 10^scale` (1.0825 → 10825 / 10^4). */
export interface ExchangeRate {
  units: bigint;
  scale: number;
  /** The rate as its canonical decimal text ("1.0825"). */
  text: string;
}

/** At most 12 digits before and 12 after the point: numeric(24,12). */
const RATE = /^(\d{1,12})(?:\.(\d{1,12}))?$/;

/** "1.0825" (or 1.0825) → an exact rate; null when it is not a positive decimal of that shape. */
export function parseExchangeRate(value: string | number): ExchangeRate | null {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value.trim();
  const match = RATE.exec(text);
  if (!match) return null;
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  const units = BigInt(match[1]! + fraction);
  if (units === 0n) return null;
  const whole = String(BigInt(match[1]!));
  return { units, scale: fraction.length, text: fraction ? `${whole}.${fraction}` : whole };
}

/**
 * `percent` % of an amount in one currency, converted at `rate` into another, rounded half up
 * once, at the target's minor unit: minor × percent/100 × rate × 10^(to − from).
 */
export function convertShare(minor: Minor, from: number, rate: ExchangeRate, to: number, percent = 100): Minor {
  const n = BigInt(minor) * BigInt(basisPoints(percent)) * rate.units * 10n ** BigInt(to);
  const d = 100n * 10n ** BigInt(PERCENT_DECIMALS) * 10n ** BigInt(rate.scale) * 10n ** BigInt(from);
  return divideHalfUp(n, d);
}

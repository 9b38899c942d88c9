import { isInteger, isSafeNumber, parse } from 'lossless-json';

/**
 * JSON.parse, except that an integer too large for a JS number (Shopify's ids exceed 2^53) is
 * kept as its exact digits in a string. Every other number is an ordinary number.
 */
export function parseLosslessJson(text: string): unknown {
  return parse(text, null, (digits: string) => (isInteger(digits) && !isSafeNumber(digits) ? digits : Number(digits)));
}

/** An id as its exact digits, whether it arrived as a number, a kept big integer or a string. */
export function idString(value: unknown): string | null {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

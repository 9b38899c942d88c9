import { data as iso4217 } from 'currency-codes';
import { Invalid } from './errors';

/**
 * ISO 4217 currencies and their minor-unit exponents (JPY 0, USD 2, KWD 3), from the
 * `currency-codes` package, which ingests ISO's own list (not CLDR's display digits, which
 * `Intl` reports: IQD 0 instead of ISO's 3, HUF 0 instead of 2). Codes with no minor unit in ISO
 * ("N.A.": gold, SDRs, test and no-currency codes) are not money a shop sells in: refused.
 */
export const DEFAULT_CURRENCY = 'USD';

const NO_MINOR_UNIT = new Set(['XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XPD', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX']);

const EXPONENTS: ReadonlyMap<string, number> = new Map(
  iso4217.filter((record) => !NO_MINOR_UNIT.has(record.code)).map((record) => [record.code, record.digits]),
);

/** "eur" → "EUR"; null when it is not an ISO 4217 currency we accept. */
export function currencyCode(value: string): string | null {
  const code = value.trim().toUpperCase();
  return EXPONENTS.has(code) ? code : null;
}

/** currencyCode for a caller's value: unknown → Invalid naming `field`. */
export function requireCurrency(value: string, field = 'currency'): string {
  const code = currencyCode(value);
  if (code === null) throw new Invalid(`${field}: must be an ISO 4217 code such as USD, EUR or JPY (got "${value}")`);
  return code;
}

/** A currency with its minor unit, resolved once and handed on (amounts are exact at `exponent` decimals). */
export interface Currency {
  code: string;
  exponent: number;
}

/** A known code (currencyCode or requireCurrency) with its exponent. */
export function currencyOf(code: string): Currency {
  return { code, exponent: currencyExponent(code) };
}

/** The number of decimals of a currency's minor unit: JPY 0, USD 2, KWD 3. */
export function currencyExponent(code: string): number {
  const exponent = EXPONENTS.get(code);
  if (exponent === undefined) throw new RangeError(`not an ISO 4217 currency: ${code}`);
  return exponent;
}

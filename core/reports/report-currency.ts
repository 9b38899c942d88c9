import { currencyExponent } from '../currency';
import type { Executor } from '../db/transaction';
import { type Minor, amountFromMinor, minorFromDecimal } from '../money';

/** The currency every money figure of a brand's reports is in: the brand's (docs/merchants/dashboard.md "Currencies"). */
export interface ReportCurrency {
  /** ISO 4217 code, e.g. "USD". */
  currency: string;
  /** Its minor unit's decimals: JPY 0, USD 2, KWD 3. */
  exponent: number;
}

export async function reportCurrency(db: Executor, brandId: string): Promise<ReportCurrency> {
  const brand: { currency: string } | undefined = await db('brands').where({ brand_id: brandId }).first('currency');
  const currency = brand?.currency ?? 'USD';
  return { currency, exponent: currencyExponent(currency) };
}

/**
 * SQL for an amount of a conversion (in the order's currency) in the brand's: times the order's
 * stored exchange_rate (null when the order is in the brand's currency), in exact numeric
 * arithmetic, rounded half away from zero at the brand currency's minor unit (:exponent). Each
 * order (or line) is rounded once, so a day's, a product's and the period's sums agree.
 */
export function inBrandCurrency(amount: string, rate: string): string {
  return `round(${amount} * coalesce(${rate}, 1), CAST(:exponent AS integer))`;
}

/** A numeric column value in the report's currency → its minor units, and back to a JSON number. */
export function reportAmounts({ exponent }: ReportCurrency) {
  return {
    minor: (value: string | number | null | undefined): Minor => minorFromDecimal(value ?? '0', exponent),
    amount: (minor: Minor): number => amountFromMinor(minor, exponent),
  };
}

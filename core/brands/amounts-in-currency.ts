import { currencyExponent } from '../currency';
import { Invalid } from '../errors';
import { decimalFromMinor, hasAtMostDecimals, maxMinor, minorUnitRule } from '../money';
import type { BrandSettings } from './brand';

/**
 * A brand's money settings are whole minor units of its currency, and at most what those count:
 * every claim computes its discount with them (core/claims/claim-discount.ts), so a minimum purchase
 * of 999,999,999,999.9999 USD would refuse every claim. The schema cannot tell; it knows no currency.
 */
export function amountsInCurrency(currency: string, settings: Partial<Pick<BrandSettings, 'referee_min_purchase' | 'referee_discount_cap' | 'fulfil_min_amount'>>): void {
  const [first] = amountProblems(currency, settings);
  if (first) throw new Invalid(first);
}

/** Every money setting that is not whole minor units of the currency, or more than they count: each a message starting with its field. */
export function amountProblems(currency: string, settings: Partial<Pick<BrandSettings, 'referee_min_purchase' | 'referee_discount_cap' | 'fulfil_min_amount'>>): string[] {
  const exponent = currencyExponent(currency);
  const most = decimalFromMinor(maxMinor(exponent), exponent);
  const problems: string[] = [];
  for (const field of ['referee_min_purchase', 'referee_discount_cap', 'fulfil_min_amount'] as const) {
    const value = settings[field];
    if (value === null || value === undefined) continue;
    if (value > Number(most)) problems.push(`${field} must be at most ${most} ${currency}`);
    else if (!hasAtMostDecimals(value, exponent)) problems.push(`${field}: ${minorUnitRule(exponent, currency)}`);
  }
  return problems;
}

import type { Currency } from '../currency';
import { Invalid } from '../errors';
import { type Minor, exactMinor, percentOf, toMinor } from '../money';

/** A discount rule applied to the value before discount (the brand's referee discount, or the caller's). */
export interface DiscountRule {
  type: 'percentage' | 'fixed' | 'custom';
  value: number;
  /** Below this raw value no discount applies. */
  min_purchase?: number | null;
  /** The discount never exceeds this. */
  cap?: number | null;
}

export interface ClaimAmounts {
  raw_value: Minor;
  claim_value: Minor;
  discount_applied: Minor;
}

/** The brand's currency, in which a claim's amounts are. */
export type ClaimCurrency = Currency;

/**
 * DECISIONS.md "Claims": raw_value and claim_value both given → their difference; otherwise the
 * caller's discount_value/discount_type (a value alone is an amount), else the fallback rule,
 * applied to raw_value: a percentage of it, or a fixed amount capped at it. Exact, in the brand
 * currency's minor units; a caller's amount with more decimals than it has is Invalid.
 */
export function claimAmounts(
  input: { raw_value?: number | null; claim_value?: number | null; discount_value?: number | null; discount_type?: DiscountRule['type'] | null },
  fallback: DiscountRule,
  currency: ClaimCurrency = { code: 'USD', exponent: 2 },
): ClaimAmounts {
  const exact = (value: number, field: string) => exactMinor(value, currency.exponent, field, currency.code);
  if (input.raw_value != null && input.claim_value != null) {
    const raw = exact(input.raw_value, 'raw_value');
    const claim = exact(input.claim_value, 'claim_value');
    if (claim > raw) throw new Invalid('claim_value must not exceed raw_value');
    return { raw_value: raw, claim_value: claim, discount_applied: raw - claim };
  }
  // Only the value after discount: nothing tells what was taken off, so it is also the raw value.
  if (input.raw_value == null && input.claim_value != null) {
    const claim = exact(input.claim_value, 'claim_value');
    return { raw_value: claim, claim_value: claim, discount_applied: 0 };
  }
  const raw = exact(input.raw_value ?? 0, 'raw_value');
  const rule: DiscountRule =
    input.discount_value != null ? { type: input.discount_type ?? 'fixed', value: input.discount_value } : fallback;
  const discount = discountOn(raw, rule, currency.exponent);
  return { raw_value: raw, claim_value: raw - discount, discount_applied: discount };
}

/** The discount a rule gives on `raw` minor units: never more than raw, nor the cap. */
export function discountOn(raw: Minor, rule: DiscountRule, exponent = 2): Minor {
  const minor = (value: number) => toMinor(value, exponent);
  if (rule.min_purchase != null && raw < minor(rule.min_purchase)) return 0;
  // 'custom' is an amount the caller worked out, like 'fixed'.
  const uncapped = rule.type === 'percentage' ? percentOf(raw, rule.value) : minor(rule.value);
  const capped = rule.cap != null ? Math.min(uncapped, minor(rule.cap)) : uncapped;
  return Math.max(0, Math.min(capped, raw));
}

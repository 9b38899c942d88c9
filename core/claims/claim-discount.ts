import { Invalid } from '../errors';
import { type Cents, percentOf, toCents } from '../money';

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
  raw_value: Cents;
  claim_value: Cents;
  discount_applied: Cents;
}

/**
 * DECISIONS.md "Claims": raw_value and claim_value both given → their difference; otherwise the
 * caller's discount_value/discount_type (a value alone is an amount), else the fallback rule,
 * applied to raw_value: a percentage of it, or a fixed amount capped at it. Exact, in cents.
 */
export function claimAmounts(
  input: { raw_value?: number | null; claim_value?: number | null; discount_value?: number | null; discount_type?: DiscountRule['type'] | null },
  fallback: DiscountRule,
): ClaimAmounts {
  if (input.raw_value != null && input.claim_value != null) {
    const raw = toCents(input.raw_value);
    const claim = toCents(input.claim_value);
    if (claim > raw) throw new Invalid('claim_value must not exceed raw_value');
    return { raw_value: raw, claim_value: claim, discount_applied: raw - claim };
  }
  // Only the value after discount: nothing tells what was taken off, so it is also the raw value.
  if (input.raw_value == null && input.claim_value != null) {
    const claim = toCents(input.claim_value);
    return { raw_value: claim, claim_value: claim, discount_applied: 0 };
  }
  const raw = toCents(input.raw_value ?? 0);
  const rule: DiscountRule =
    input.discount_value != null ? { type: input.discount_type ?? 'fixed', value: input.discount_value } : fallback;
  const discount = discountOn(raw, rule);
  return { raw_value: raw, claim_value: raw - discount, discount_applied: discount };
}

/** The discount a rule gives on `raw` cents: never more than raw, nor the cap. */
export function discountOn(raw: Cents, rule: DiscountRule): Cents {
  if (rule.min_purchase != null && raw < toCents(rule.min_purchase)) return 0;
  // 'custom' is an amount the caller worked out, like 'fixed'.
  const uncapped = rule.type === 'percentage' ? percentOf(raw, rule.value) : toCents(rule.value);
  const capped = rule.cap != null ? Math.min(uncapped, toCents(rule.cap)) : uncapped;
  return Math.max(0, Math.min(capped, raw));
}

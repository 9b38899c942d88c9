import { claimAmounts, discountOn } from '../../core/claims/claim-discount';
import { Invalid } from '../../core/errors';

const tenPercent = { type: 'percentage' as const, value: 10 };

describe('claim discount (DECISIONS.md "Claims")', () => {
  it('uses raw_value − claim_value when both are given, ignoring any rule', () => {
    expect(claimAmounts({ raw_value: 100, claim_value: 85.5, discount_value: 50 }, tenPercent)).toEqual({
      raw_value: 10000,
      claim_value: 8550,
      discount_applied: 1450,
    });
  });

  it('refuses a claim_value above raw_value', () => {
    expect(() => claimAmounts({ raw_value: 10, claim_value: 12 }, tenPercent)).toThrow(Invalid);
  });

  it('applies a percentage discount_value to raw_value, rounding half up at the cent', () => {
    expect(claimAmounts({ raw_value: 19.99, discount_value: 15, discount_type: 'percentage' }, tenPercent)).toEqual({
      raw_value: 1999,
      claim_value: 1699,
      discount_applied: 300,
    });
  });

  it('treats a discount_value without a type, or of type custom, as an amount capped at raw_value', () => {
    expect(claimAmounts({ raw_value: 30, discount_value: 5 }, tenPercent).discount_applied).toBe(500);
    expect(claimAmounts({ raw_value: 30, discount_value: 50, discount_type: 'fixed' }, tenPercent)).toEqual({
      raw_value: 3000,
      claim_value: 0,
      discount_applied: 3000,
    });
    expect(claimAmounts({ raw_value: 30, discount_value: 7.25, discount_type: 'custom' }, tenPercent).discount_applied).toBe(725);
  });

  it('falls back to the rule (the brand referee discount) when no discount is sent', () => {
    expect(claimAmounts({ raw_value: 0.1 + 0.2 }, tenPercent)).toEqual({ raw_value: 30, claim_value: 27, discount_applied: 3 });
  });

  it('gives no discount below the minimum purchase and never more than the cap', () => {
    const rule = { type: 'percentage' as const, value: 20, min_purchase: 50, cap: 15 };
    expect(discountOn(4999, rule)).toBe(0);
    expect(discountOn(5000, rule)).toBe(1000);
    expect(discountOn(20000, rule)).toBe(1500);
  });

  it('keeps a percentage above 100 from exceeding raw_value', () => {
    expect(discountOn(1000, { type: 'percentage', value: 150 })).toBe(1000);
  });

  it('with only claim_value, takes it as the raw value too and applies no discount', () => {
    expect(claimAmounts({ claim_value: 40 }, tenPercent)).toEqual({ raw_value: 4000, claim_value: 4000, discount_applied: 0 });
  });

  it('with no values at all, records a zero claim', () => {
    expect(claimAmounts({}, tenPercent)).toEqual({ raw_value: 0, claim_value: 0, discount_applied: 0 });
  });
});

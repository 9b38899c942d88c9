import { Invalid } from '../../core/errors';
import { amountFromMinor, decimalFromMinor, hasAtMostDecimals, minorFromDecimal, percentOf, prorate, toMinor } from '../../core/money';

// Cents are minor units at exponent 2 (USD, EUR): what these amounts were before currencies.

describe('money', () => {
  it('turns major units into cents without binary noise', () => {
    expect(toMinor(19.99, 2)).toBe(1999);
    expect(toMinor(1.005, 2)).toBe(101);
    expect(toMinor(0.1 + 0.2, 2)).toBe(30);
    expect(toMinor(120, 2)).toBe(12000);
  });

  it('round-trips numeric(14,2) text exactly', () => {
    expect(minorFromDecimal('999999999999.99', 2)).toBe(99999999999999);
    expect(decimalFromMinor(99999999999999, 2)).toBe('999999999999.99');
    expect(decimalFromMinor(-5, 2)).toBe('-0.05');
    expect(minorFromDecimal('-0.05', 2)).toBe(-5);
    expect(amountFromMinor(1234, 2)).toBe(12.34);
  });

  it('computes percentages and pro-rata shares in integer arithmetic, rounding half up', () => {
    expect(percentOf(12000, 10)).toBe(1200);
    expect(percentOf(999, 12.5)).toBe(125); // 124.875
    expect(prorate(1000, 1000, 3000)).toBe(333);
    expect(prorate(1000, 2000, 3000)).toBe(667);
  });

  it('refuses amounts beyond numeric(14,2) as invalid input', () => {
    expect(() => toMinor(1e13, 2)).toThrow(Invalid);
    expect(() => toMinor(1e13, 2)).toThrow('amount 10000000000000 is out of range (at most 999999999999.99)');
  });

  it('tells whole cents (at most 2 decimals, binary noise aside) from amounts below one minor unit', () => {
    for (const amount of [0, 1, 19.99, 0.1 + 0.2, 999999999999.99, 1e12]) expect(hasAtMostDecimals(amount, 2)).toBe(true);
    for (const amount of [1e-9, 0.001, 10.005, 19.999, 5e-324, Number.NaN, Number.POSITIVE_INFINITY]) expect(hasAtMostDecimals(amount, 2)).toBe(false);
  });

  it('allows percentages up to four decimals', () => {
    expect(hasAtMostDecimals(12.3456, 4)).toBe(true);
    expect(hasAtMostDecimals(12.34567, 4)).toBe(false);
  });
});

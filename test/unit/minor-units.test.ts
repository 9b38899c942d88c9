import { currencyCode, currencyExponent, requireCurrency } from '../../core/currency';
import { Invalid } from '../../core/errors';
import { amountFromMinor, convertShare, decimalFromMinor, decimalsOf, exactMinor, minorFromDecimal, parseExchangeRate, percentOf, toMinor } from '../../core/money';

describe('minor units with an exponent', () => {
  it('takes each currency’s exponent from ISO 4217, not from CLDR where they differ', () => {
    expect([currencyExponent('JPY'), currencyExponent('USD'), currencyExponent('KWD'), currencyExponent('CLF')]).toEqual([0, 2, 3, 4]);
    // Intl (CLDR) says 0 for IQD and HUF; ISO 4217 says 3 and 2.
    expect([currencyExponent('IQD'), currencyExponent('HUF')]).toEqual([3, 2]);
  });

  it('normalizes codes case-insensitively and refuses what is no currency a shop sells in', () => {
    expect(currencyCode(' eur ')).toBe('EUR');
    for (const code of ['EURO', 'ZZZ', 'XAU', 'XXX', 'XTS', '']) expect(currencyCode(code)).toBeNull();
    expect(() => requireCurrency('zzz')).toThrow(new Invalid('currency: must be an ISO 4217 code such as USD, EUR or JPY (got "zzz")'));
  });

  it('converts major units to minor units and back at 0, 2 and 3 decimals', () => {
    expect([toMinor(1500, 0), toMinor(19.99, 2), toMinor(12.345, 3), toMinor(1.0001, 4)]).toEqual([1500, 1999, 12345, 10001]);
    expect([decimalFromMinor(1500, 0), decimalFromMinor(1999, 2), decimalFromMinor(12345, 3), decimalFromMinor(-5, 3)]).toEqual(['1500', '19.99', '12.345', '-0.005']);
    expect([minorFromDecimal('1500', 0), minorFromDecimal('12.345', 3), minorFromDecimal('10.00', 0), minorFromDecimal('-0.005', 3)]).toEqual([1500, 12345, 10, -5]);
    expect(amountFromMinor(12345, 3)).toBe(12.345);
  });

  it('refuses an amount with more decimals than its currency has, naming the field', () => {
    expect(() => exactMinor(10.5, 0, 'order_value', 'JPY')).toThrow(new Invalid('order_value: must be a whole number of JPY (no decimals)'));
    expect(() => exactMinor(1.2345, 3, 'refund_amount', 'KWD')).toThrow(new Invalid('refund_amount: must be a whole number of KWD minor units (at most 3 decimals)'));
    expect(() => exactMinor(0.001, 2, 'price', 'EUR')).toThrow(new Invalid('price: must be a whole number of cents (at most 2 decimals)'));
    expect(exactMinor(12.345, 3, 'order_value', 'KWD')).toBe(12345);
  });

  it('counts decimals up to four', () => {
    expect([decimalsOf(12), decimalsOf(12.5), decimalsOf(12.345), decimalsOf(0.1 + 0.2)]).toEqual([0, 1, 3, 1]);
  });

  it('parses exchange rates as exact decimals', () => {
    expect(parseExchangeRate('1.0825')).toEqual({ units: 10825n, scale: 4, text: '1.0825' });
    expect(parseExchangeRate(1.0825)).toEqual({ units: 10825n, scale: 4, text: '1.0825' });
    expect(parseExchangeRate('007.50')).toEqual({ units: 75n, scale: 1, text: '7.5' });
    for (const bad of ['0', '0.000', '-1', '1e3', '1,5', '', '1.0000000000001']) expect(parseExchangeRate(bad)).toBeNull();
  });

  it('takes a percentage in one currency and converts it into another, rounding once, half up', () => {
    const rate = parseExchangeRate('1.0825')!;
    expect(convertShare(9999, 2, rate, 2, 10)).toBe(1082); // 10.8239175
    expect(convertShare(10000, 2, rate, 2, 10)).toBe(1083); // 10.825
    expect(convertShare(15000, 0, parseExchangeRate('0.0067')!, 2, 10)).toBe(1005); // 15000 JPY × 10 % → 10.05 USD
    expect(convertShare(12345, 3, parseExchangeRate('3.25')!, 2)).toBe(4012); // 12.345 KWD → 40.12125 USD
    expect(percentOf(1500, 10)).toBe(150);
  });
});

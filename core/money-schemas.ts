import { z } from 'zod';
import { hasAtMostDecimals, MAX_EXPONENT, PERCENT_DECIMALS } from './money';

/**
 * The zod shapes of money in major units, bounded by the columns that store them: the request
 * schemas' (server/schemas/fields.ts) and the brand's settings (core/brands/brand.ts).
 */
const MAX_AMOUNT = 999_999_999_999.9999; // money_amount: 12 digits, at most 4 decimals
/** 10^-MAX_EXPONENT, written out (10 ** -4 is 0.00009999999999999999). */
const MIN_MINOR_UNIT = 0.0001;
const MAX_DISCOUNT_VALUE = 9_999_999_999.9999; // numeric(14,4)

/**
 * A JSON number of money in major units: not a string, not negative, at most 12 digits before the
 * point. Its decimals are checked against its currency (JPY 0, USD 2, KWD 3) by the use case,
 * which knows the currency; no currency has more than 4.
 */
export const amount = () =>
  z
    .number()
    .nonnegative({ error: 'must not be negative' })
    .max(MAX_AMOUNT, { error: `must be at most ${MAX_AMOUNT}` })
    .meta({ multipleOf: MIN_MINOR_UNIT, description: "At most as many decimals as the currency's minor unit (JPY 0, USD 2, KWD 3)" });

/** An amount kept as it is given (a brand's setting): at most the 4 decimals money_amount stores, checked here. */
export const storedAmount = () => amount().refine((value) => hasAtMostDecimals(value, MAX_EXPONENT), { error: `must have at most ${MAX_EXPONENT} decimals` });

/** discount_value: an amount, or a percentage with up to four decimals (numeric(14,4)). */
export const discountValue = () =>
  z
    .number()
    .nonnegative({ error: 'must not be negative' })
    .max(MAX_DISCOUNT_VALUE, { error: `must be at most ${MAX_DISCOUNT_VALUE}` })
    .refine((value) => hasAtMostDecimals(value, PERCENT_DECIMALS), { error: `must have at most ${PERCENT_DECIMALS} decimals` })
    .meta({ multipleOf: 10 ** -PERCENT_DECIMALS });

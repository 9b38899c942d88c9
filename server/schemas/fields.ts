import { z } from 'zod';

/** Field shapes shared by every request schema, with the limits of DECISIONS.md. */
export const MAX_STRING = 2048;
export const MAX_LINES = 500;
export const MAX_METADATA_BYTES = 16 * 1024;
const MAX_AMOUNT = 999_999_999_999.99;

export const text = () => z.string().max(MAX_STRING, { error: `must be at most ${MAX_STRING} characters` });
export const requiredText = () => text().trim().min(1, { error: 'must not be empty' });

/** A JSON number of money in major units: not a string, not negative, fits numeric(14,2). */
export const amount = () =>
  z
    .number()
    .nonnegative({ error: 'must not be negative' })
    .max(MAX_AMOUNT, { error: 'is too large' });

export const email = () =>
  requiredText().regex(/^[^\s@]+@[^\s@]+$/, { error: 'must be an email address' });

/** Order ids are strings; an integer is accepted and kept as its digits. */
export const orderId = () =>
  z.union([requiredText(), z.number().int().nonnegative().refine(Number.isSafeInteger, { error: 'is too large for a JSON number: send it as a string' }).transform(String)]);

export const metadata = () =>
  z
    .record(z.string(), z.unknown())
    .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= MAX_METADATA_BYTES, {
      error: `must be at most ${MAX_METADATA_BYTES} bytes of JSON`,
    });

export const lines = <T extends z.ZodType>(line: T) =>
  z.array(line).max(MAX_LINES, { error: `must have at most ${MAX_LINES} entries` });

export const couponEntry = () =>
  z.looseObject({
    code: requiredText(),
    discount_amount: amount().optional(),
    discount_tax: amount().optional(),
  });

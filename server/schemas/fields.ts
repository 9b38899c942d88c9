import { isIP } from 'node:net';
import { z } from 'zod';
import { currencyCode } from '../../core/currency';
import { isMailbox, MAILBOX_RULE } from '../../core/mail/mailbox';
import { parseExchangeRate } from '../../core/money';
import { amount, discountValue } from '../../core/money-schemas';

/** Money's shapes live in core: the brand's settings are bounded by them too. */
export { amount, discountValue };

/** Field shapes shared by every request schema, with the limits of DECISIONS.md and docs/api/rest.md (*Limits*). */
export const MAX_STRING = 2048;
/** Identifiers are indexed: a btree entry holds at most ~2,700 bytes, so they are bounded in bytes too. */
export const MAX_IDENTIFIER_CHARS = 512;
export const MAX_IDENTIFIER_BYTES = 1024;
export const MAX_LINES = 500;
export const MAX_METADATA_BYTES = 16 * 1024;

/** Free text that is stored but never indexed (names, URLs, reasons). */
export const text = () => z.string().max(MAX_STRING, { error: `must be at most ${MAX_STRING} characters` });
export const requiredText = () => text().trim().min(1, { error: 'must not be empty' });

const withinIdentifierLimits = (value: z.ZodString) =>
  value
    .max(MAX_IDENTIFIER_CHARS, { error: `must be at most ${MAX_IDENTIFIER_CHARS} characters` })
    .refine((text) => Buffer.byteLength(text) <= MAX_IDENTIFIER_BYTES, { error: `must be at most ${MAX_IDENTIFIER_BYTES} bytes in UTF-8` })
    .meta({ description: `At most ${MAX_IDENTIFIER_CHARS} characters and ${MAX_IDENTIFIER_BYTES} bytes of UTF-8`, 'x-max-bytes': MAX_IDENTIFIER_BYTES });

/** A value that is looked up or kept unique (order, refund and visitor ids, codes, emails). */
export const identifier = () => withinIdentifierLimits(z.string().trim().min(1, { error: 'must not be empty' }));

/** An optional identifier a client may send empty (a device's blank storage): the same limits, '' allowed. */
export const looseIdentifier = () => withinIdentifierLimits(z.string());

/** An ISO 4217 code, any case ("eur" is EUR). */
export const currency = () =>
  z
    .string()
    .refine((value) => currencyCode(value) !== null, { error: 'must be an ISO 4217 code such as USD, EUR or JPY' })
    .meta({ description: "ISO 4217 (case-insensitive); default: the brand's currency", example: 'EUR' });

/** Brand-currency units per one unit of the order's currency, as exact decimal text ("1.0825"); a JSON number is taken as written. */
export const exchangeRate = () =>
  z
    .union([z.string(), z.number()])
    .refine((value) => parseExchangeRate(value) !== null, { error: 'must be a positive decimal such as "1.0825" (at most 12 decimals)' })
    .meta({ description: "Brand-currency units per 1 unit of `currency`; required when `currency` is not the brand's", example: '1.0825' });

export const email = () => identifier().regex(/^[^\s@]+@[^\s@]+$/, { error: 'must be an email address' });

/** An address the program may write to (a referred friend's): deliverable as written, or refused before anything is queued. */
export const mailbox = () => identifier().refine(isMailbox, { error: MAILBOX_RULE });

/** An id callers may send as an integer: kept as its digits. */
const integerId = () =>
  z
    .number()
    .int({ error: 'must be a string, or an integer below 2^53 (send larger ids as strings)' })
    .nonnegative({ error: 'must not be negative' })
    .transform(String);

/** Order ids are strings; an integer is accepted and kept as its digits. */
export const orderId = () => z.union([identifier(), integerId()]);

/** A caller's refund id, the same way. */
export const refundId = orderId;

/** A platform's or the caller's customer id, the same way. */
export const customerId = orderId;

/** The shopper's IPv4 or IPv6 address, as the fraud rules compare it. */
export const ipAddress = () =>
  z
    .string()
    .trim()
    .refine((value) => isIP(value) !== 0, { error: 'must be an IPv4 or IPv6 address' })
    .meta({ description: "The shopper's IPv4 or IPv6 address (not your server's)" });

/** A database id we issued (claim_id, conversion_id). */
export const recordId = () => z.number().int({ error: 'must be an integer id' }).positive({ error: 'must be a positive integer id' });

export const metadata = () =>
  z
    .record(z.string(), z.unknown())
    .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= MAX_METADATA_BYTES, {
      error: `must be at most ${MAX_METADATA_BYTES} bytes of JSON`,
    })
    .meta({ description: `Free-form; at most ${MAX_METADATA_BYTES} bytes of JSON`, 'x-max-bytes': MAX_METADATA_BYTES });

export const lines = <T extends z.ZodType>(line: T) =>
  z.array(line).max(MAX_LINES, { error: `must have at most ${MAX_LINES} entries` });

export const couponEntry = () =>
  z.looseObject({
    code: identifier(),
    discount_amount: amount().optional(),
    discount_tax: amount().optional(),
  });

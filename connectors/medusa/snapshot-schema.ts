import { z } from 'zod';
import { Invalid } from '../../core/errors';
import { DEFAULT_CURRENCY, currencyCode, currencyExponent } from '../../core/currency';
import { MAX_EXPONENT, type Minor, minorFromDecimal, toMinor } from '../../core/money';

/**
 * The order snapshot the Medusa plugin POSTs to /medusa/webhooks (its TypeScript side is
 * OrderSnapshot in plugin/src/lib/order-graph.ts). Only the fields the mapping reads are checked;
 * everything else Medusa sends is ignored.
 */

const MAX_STRING = 2048;
const MAX_LINES = 500;
const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * Medusa amounts are major units and arrive as numbers, strings ("19.99", or "1e-7" from
 * bignumber.js) or BigNumber-like objects ({value} raw values, {numeric}). → exact minor units of
 * a currency with `exponent` decimals (digits past it round half up), or null.
 */
export function minorOfMedusaAmount(value: unknown, exponent: number): Minor | null {
  if (typeof value === 'number') return Number.isFinite(value) ? toMinor(value, exponent) : null;
  if (typeof value === 'string') {
    const text = value.trim();
    if (PLAIN_DECIMAL.test(text)) return minorFromDecimal(text, exponent);
    const number = Number(text);
    return text !== '' && Number.isFinite(number) ? toMinor(number, exponent) : null;
  }
  if (value !== null && typeof value === 'object') {
    if ('value' in value) return minorOfMedusaAmount(value.value, exponent);
    if ('numeric' in value) return minorOfMedusaAmount(value.numeric, exponent);
  }
  return null;
}

/** An amount in any of Medusa's forms → non-negative minor units at `exponent`; missing → 0. */
const amountAt = (exponent: number) =>
  z.unknown().transform((value, ctx): Minor => {
    if (value === null || value === undefined) return 0;
    let minor: Minor | null;
    try {
      minor = minorOfMedusaAmount(value, exponent);
    } catch {
      minor = null; // out of range
    }
    if (minor === null || minor < 0) {
      ctx.addIssue({ code: 'custom', message: `is not an amount: ${JSON.stringify(value)?.slice(0, 60)}` });
      return z.NEVER;
    }
    return minor;
  });

/** Item quantities come in the same forms; a quantity is a whole number of units. */
const UNIT = 10 ** MAX_EXPONENT;
const quantity = amountAt(MAX_EXPONENT).pipe(
  z.number().refine((minor) => minor % UNIT === 0 && minor > 0, { message: 'must be a positive whole number' }).transform((minor) => minor / UNIT),
);

const text = () => z.string().max(MAX_STRING);
const list = <T extends z.ZodType>(item: T) => z.array(item).max(MAX_LINES).nullish().transform((items) => items ?? []);

/** The snapshot's shape with its amounts read at `exponent` decimals (the order currency's). */
function snapshotSchema(exponent: number) {
  const amount = amountAt(exponent);
  const adjustmentSchema = z.object({
    code: text().nullish(),
    amount,
    promotion_id: text().nullish(),
  });

  const itemSchema = z.object({
    id: text().nullish(),
    title: text().nullish(),
    variant_sku: text().nullish(),
    quantity,
    unit_price: amount,
    total: amount,
    product_id: text().nullish(),
    product: z.object({ categories: list(z.object({ name: text().nullish() })) }).nullish(),
    adjustments: list(adjustmentSchema),
  });

  const refundSchema = z.object({
    id: text().min(1),
    amount,
    note: text().nullish(),
    created_at: text().nullish(),
  });

  return z.object({
    version: z.literal(1),
    event_id: text().min(1),
    event_name: text().min(1),
    occurred_at: text().nullish(),
    conversion_trigger: z.enum(['captured', 'placed']).default('captured'),
    order: z.object({
      id: text().min(1),
      display_id: z.union([z.number(), text()]).nullish(),
      email: text().nullish(),
      currency_code: text().nullish(),
      status: text().nullish(),
      canceled_at: text().nullish(),
      total: amount,
      subtotal: amount,
      tax_total: amount,
      shipping_total: amount,
      discount_total: amount,
      summary: z.object({ paid_total: amount, refunded_total: amount }).nullish(),
      items: list(itemSchema),
      shipping_methods: list(z.object({ adjustments: list(adjustmentSchema) })),
      promotions: list(z.object({ id: text().nullish(), code: text().nullish(), is_automatic: z.boolean().nullish() })),
      payment_collections: list(
        z.object({ payments: list(z.object({ id: text().nullish(), refunds: list(refundSchema) })) }),
      ),
    }),
  });
}

/** Only the currency, read first: the amounts are parsed in its minor units. */
const currencySchema = z.object({ order: z.object({ currency_code: z.unknown() }).passthrough() }).passthrough();

const schemas = new Map<number, ReturnType<typeof snapshotSchema>>();
function schemaFor(exponent: number): ReturnType<typeof snapshotSchema> {
  let schema = schemas.get(exponent);
  if (!schema) schemas.set(exponent, (schema = snapshotSchema(exponent)));
  return schema;
}

/** The snapshot with every amount in exact minor units of its currency (`exponent` decimals: KWD 3, JPY 0). */
export type MedusaSnapshot = z.infer<ReturnType<typeof snapshotSchema>> & { exponent: number };
/** What the plugin sends (amounts in any of Medusa's forms). */
export type MedusaSnapshotBody = z.input<ReturnType<typeof snapshotSchema>>;

/**
 * Validates a delivered body; the first problem names its field. Amounts are read in the order's
 * currency (`currency_code`); without one (or with one that is no ISO code, which the core then
 * refuses) in `defaultCurrency`, the brand's, which is the currency such an order is recorded in.
 */
export function parseMedusaSnapshot(body: unknown, defaultCurrency: string = DEFAULT_CURRENCY): MedusaSnapshot {
  const named = currencySchema.safeParse(body);
  const code = named.success && typeof named.data.order.currency_code === 'string' ? currencyCode(named.data.order.currency_code) : null;
  const exponent = currencyExponent(code ?? defaultCurrency);
  const parsed = schemaFor(exponent).safeParse(body);
  if (parsed.success) return { ...parsed.data, exponent };
  const issue = parsed.error.issues[0]!;
  const field = issue.path.length > 0 ? issue.path.map(String).join('.') : 'body';
  throw new Invalid(`medusa snapshot: ${field} ${issue.message}`);
}

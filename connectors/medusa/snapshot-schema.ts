import { z } from 'zod';
import { Invalid } from '../../core/errors';
import { type Cents, centsFromDecimal, toCents } from '../../core/money';

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
 * bignumber.js) or BigNumber-like objects ({value} raw values, {numeric}). → exact cents, or null.
 */
export function centsOfMedusaAmount(value: unknown): Cents | null {
  if (typeof value === 'number') return Number.isFinite(value) ? toCents(value) : null;
  if (typeof value === 'string') {
    const text = value.trim();
    if (PLAIN_DECIMAL.test(text)) return centsFromDecimal(text);
    const number = Number(text);
    return text !== '' && Number.isFinite(number) ? toCents(number) : null;
  }
  if (value !== null && typeof value === 'object') {
    if ('value' in value) return centsOfMedusaAmount(value.value);
    if ('numeric' in value) return centsOfMedusaAmount(value.numeric);
  }
  return null;
}

/** An amount in any of Medusa's forms → non-negative cents; missing → 0. */
const amount = z.unknown().transform((value, ctx): Cents => {
  if (value === null || value === undefined) return 0;
  let cents: Cents | null;
  try {
    cents = centsOfMedusaAmount(value);
  } catch {
    cents = null; // out of range
  }
  if (cents === null || cents < 0) {
    ctx.addIssue({ code: 'custom', message: `is not an amount: ${JSON.stringify(value)?.slice(0, 60)}` });
    return z.NEVER;
  }
  return cents;
});

/** Item quantities come in the same forms; a quantity is a whole number of units. */
const quantity = amount.pipe(
  z.number().refine((cents) => cents % 100 === 0 && cents > 0, { message: 'must be a positive whole number' }).transform((cents) => cents / 100),
);

const text = () => z.string().max(MAX_STRING);
const list = <T extends z.ZodType>(item: T) => z.array(item).max(MAX_LINES).nullish().transform((items) => items ?? []);

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

export const medusaSnapshotSchema = z.object({
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

/** The snapshot with every amount in exact cents. */
export type MedusaSnapshot = z.infer<typeof medusaSnapshotSchema>;
/** What the plugin sends (amounts in any of Medusa's forms). */
export type MedusaSnapshotBody = z.input<typeof medusaSnapshotSchema>;

/** Validates a delivered body; the first problem names its field. */
export function parseMedusaSnapshot(body: unknown): MedusaSnapshot {
  const parsed = medusaSnapshotSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.length > 0 ? issue.path.map(String).join('.') : 'body';
  throw new Invalid(`medusa snapshot: ${field} ${issue.message}`);
}

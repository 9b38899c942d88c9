import fc from 'fast-check';
import type { Knex } from 'knex';
import { givenAdvocate, givenBrand, type TestBrand, uniqueOrderId } from '../helpers/fixtures';
import { signedHeaders } from '../helpers/signed-convert';
import { type TestApp, startTestApp } from '../helpers/test-app';

/**
 * Hostile bodies for every POST route: whatever arrives, the answer is never a 5xx, and an answer
 * that is not a 2xx leaves every row of the brand as it was. Reproduce a failure with the seed it
 * prints: FUZZ_SEED=<seed> npx jest test/fuzz; FUZZ_RUNS raises the number of bodies tried.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261110);
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

/** JSON text spliced into a body as is: numbers JSON.stringify cannot write, nesting, broken syntax. */
class Raw {
  constructor(readonly text: string) {}
}

function toJson(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}:${toJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

// ---- hostile values ---------------------------------------------------------------------------

/** Characters that grow when case-folded (İ, ΐ, ß, ﬃ), combine, join, reverse, or are lone surrogates. */
const EDGE_CHARACTERS = ['漢', '字', '👩‍👩‍👧‍👦', '😀', 'e\u0301', '\u0301', '\u200d', '\ufeff', '\u202e', 'İ', 'ΐ', 'ß', 'ﬃ', '𝕏', '\ud800', '\udfff', 'a', '@', ' ', '\\', '"'];

const longRun = fc
  .tuple(fc.array(fc.constantFrom(...EDGE_CHARACTERS), { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 1400 }))
  .map(([pieces, times]) => pieces.join('').repeat(times));

/** Text that passes the length limits, so it reaches the database: case folding, indexes, encodings. */
const edgeText = fc.array(fc.constantFrom(...EDGE_CHARACTERS), { minLength: 1, maxLength: 200 }).map((pieces) => pieces.join(''));
const plausible = fc.oneof(
  edgeText,
  edgeText.map((text) => `${text}@example.com`),
  fc.integer({ min: 0, max: 100_000 }),
  fc.integer({ min: 0, max: 10_000_000 }).map((cents) => cents / 100),
);

/** Long text that does not repeat (CJK, emoji, Latin with marks), so PostgreSQL cannot compress it small. */
const longDistinct = fc
  .tuple(fc.constantFrom(0x4e00, 0x1f300, 0xac00, 0x0100), fc.integer({ min: 1, max: 1400 }), fc.integer({ min: 0, max: 5000 }))
  .map(([base, length, offset]) => Array.from({ length }, (_, i) => String.fromCodePoint(base + ((offset + i * 7919) % 2000))).join(''));

const hostileString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  longDistinct,
  longDistinct.map((text) => `${text}@example.com`),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  longRun,
  longRun.map((run) => `${run}@example.com`),
  fc.constantFrom('', ' ', '\u0000', 'null', '12', '1e-9', 'NaN', '-1', 'c@example.com', 'not-a-uuid', '8f14e45f-ceea-467f-a9f0-5f7a9a1b2c3d', 'completed', 'refunded', 'advocate'),
);

const hostileNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, 1e-9, 0.001, 0.005, 5e-324, -1, 1e308, 2 ** 31, 2 ** 53, 2 ** 53 + 2, 999_999_999_999.99, 1e12, 0.1 + 0.2, 10.005),
  fc.constantFrom('1e400', '-1e400', '123456789012345678901234567890', '1.00000000000000000000001', '0.000000000000000000001', '1E2', '-0').map((text) => new Raw(text)),
);

const deepNesting = fc
  .tuple(fc.integer({ min: 1, max: 8000 }), fc.boolean())
  .map(([depth, arrays]) => new Raw(arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));

const scalar = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));
const container = fc.oneof(
  fc.array(scalar, { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), scalar, { maxKeys: 4 }),
  fc.array(fc.dictionary(fc.constantFrom('name', 'price', 'quantity', 'code', 'sku', 'line_total', 'unit_price'), scalar, { maxKeys: 3 }), { maxLength: 3 }),
  fc.integer({ min: 490, max: 520 }).map((length) => Array.from({ length }, () => ({ name: 'x', code: 'X' }))),
);
const hostileValue = fc.oneof({ weight: 4, arbitrary: scalar }, { weight: 4, arbitrary: plausible }, { weight: 2, arbitrary: container }, { weight: 1, arbitrary: deepNesting });

const extraKey = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', ''), fc.string({ maxLength: 12 }), longRun);

/** A body that is not a JSON object at all, or not JSON. */
const hostileDocument = fc.oneof(
  hostileValue.map(toJson),
  fc.constantFrom('', ' ', '{', '{"a":1', '[]', 'null', '{"a":1}{"b":2}', '\ufeff{}', '{"a":"\\ud800"}', '{"a":"\\u0000"}', '{"__proto__":{"admin":true}}'),
  fc.string({ unit: 'binary', maxLength: 60 }),
);

// ---- the routes and a valid body for each -----------------------------------------------------

interface World {
  brand: TestBrand;
  code: string;
  otherCode: string;
  orderId: string;
}

interface Route {
  path: string;
  /** A valid body, fresh per run, so mutations reach the use case and the database. */
  valid(world: World): Record<string, unknown>;
  /** Where a hostile value may go: top-level fields and a few nested ones. */
  paths: string[];
  signed?: boolean;
}

const PRODUCT_PATHS = ['products', 'products.0.name', 'products.0.price', 'products.0.quantity', 'products.0.line_total', 'items', 'items.0.name', 'items.0.unit_price', 'items.0.line_total', 'items.0.quantity'];
const COUPON_PATHS = ['coupons_applied', 'coupons_applied.0.code', 'coupons_applied.0.discount_amount'];

const ROUTES: Route[] = [
  {
    path: '/api/v1/track/visit',
    valid: (w) => ({ referral_code: w.code, visitor_id: '8f14e45f-ceea-467f-a9f0-5f7a9a1b2c3d', existing_code: w.otherCode, landing_page: 'https://shop.example/?ref=x', share_channel: 'sms', utm_source: 'sms', utm_medium: 'm', utm_campaign: 'c' }),
    paths: ['referral_code', 'visitor_id', 'existing_code', 'landing_page', 'share_channel', 'utm_source', 'utm_medium', 'utm_campaign'],
  },
  {
    path: '/api/v1/track/claim',
    valid: (w) => ({ referral_code: w.code, email: `c-${uniqueOrderId()}@example.com`, name: 'C', phone: '1', visitor_id: 'v', order_id: uniqueOrderId(), raw_value: 100, claim_value: 90, discount_value: 10, discount_type: 'fixed', type: 'referral', products: [{ name: 'x', price: 10, quantity: 1 }], items: [{ name: 'y', unit_price: 5 }], coupons_applied: [{ code: w.code, discount_amount: 10 }], metadata: { a: 1 } }),
    paths: ['referral_code', 'email', 'customer_email', 'name', 'customer_name', 'phone', 'visitor_id', 'order_id', 'raw_value', 'claim_value', 'discount_value', 'discount_type', 'type', 'claim_type', 'metadata', 'metadata.a', 'source', ...PRODUCT_PATHS, ...COUPON_PATHS],
  },
  {
    path: '/api/v1/track/conversion',
    valid: (w) => ({ email: `b-${uniqueOrderId()}@example.com`, order_id: uniqueOrderId(), order_value: 100, referral_code: w.code, visitor_id: 'v', referrer_reward_paid: 5, referee_reward_paid: 5, discount_value: 12.5, discount_type: 'percentage', type: 'referral', status: 'completed', currency: 'EUR', source: 's', products: [{ name: 'x', price: 50, quantity: 2 }], coupons_applied: [{ code: w.code }], metadata: { a: 1 } }),
    paths: ['email', 'customer_email', 'order_id', 'order_value', 'order_total', 'tax', 'shipping', 'discount', 'order_subtotal', 'discount_applied', 'total_discount', 'referral_code', 'visitor_id', 'claim_id', 'referrer_reward_paid', 'referee_reward_paid', 'discount_value', 'discount_type', 'type', 'status', 'currency', 'source', 'metadata', ...PRODUCT_PATHS, ...COUPON_PATHS],
  },
  {
    path: '/api/v1/track/refund',
    valid: (w) => ({ order_id: w.orderId, refund_amount: 1, is_full_refund: false, refund_id: uniqueOrderId(), referral_code: w.code, total_refunded: 1, order_total: 100, refund_reason: 'r', source: 's', metadata: { a: 1 } }),
    paths: ['order_id', 'conversion_id', 'claim_id', 'refund_amount', 'is_full_refund', 'referral_code', 'refund_id', 'total_refunded', 'order_total', 'refund_reason', 'new_status', 'source', 'metadata'],
  },
  {
    path: '/api/v1/track/check-eligibility',
    valid: (w) => ({ referral_code: w.code, customer_email: 'c@example.com', type: 'referral' }),
    paths: ['referral_code', 'customer_email', 'email', 'type'],
  },
  {
    path: '/api/v1/convert',
    signed: true,
    valid: (w) => ({ referral_code: w.code, email: `v-${uniqueOrderId()}@example.com`, value: 40, customer_name: 'V', metadata: { a: 1 } }),
    paths: ['referral_code', 'email', 'value', 'customer_name', 'metadata'],
  },
  {
    path: '/medusa/webhooks',
    signed: true,
    valid: (w) => {
      const id = `order_${uniqueOrderId()}`;
      return {
        version: 1,
        event_id: `evt_${uniqueOrderId()}`,
        event_name: 'payment.captured',
        conversion_trigger: 'captured',
        order: {
          id,
          email: `m-${uniqueOrderId()}@example.com`,
          currency_code: 'eur',
          total: 93,
          subtotal: 100,
          tax_total: 0,
          shipping_total: 0,
          discount_total: 7,
          summary: { paid_total: 93, refunded_total: 0 },
          items: [{ id: 'item_1', title: 'Shirt', variant_sku: 'S', quantity: 1, unit_price: 100, total: 93, adjustments: [{ code: w.code, amount: 7 }] }],
          promotions: [{ id: 'promo_1', code: w.code, is_automatic: false }],
          payment_collections: [{ payments: [{ id: 'pay_1', refunds: [{ id: `ref_${uniqueOrderId()}`, amount: 3 }] }] }],
        },
      };
    },
    paths: ['version', 'event_id', 'event_name', 'conversion_trigger', 'order', 'order.id', 'order.email', 'order.total', 'order.display_id', 'order.summary.paid_total', 'order.summary.refunded_total', 'order.items', 'order.items.0.quantity', 'order.items.0.unit_price', 'order.items.0.adjustments.0.code', 'order.promotions.0.code', 'order.payment_collections.0.payments.0.refunds.0.id', 'order.payment_collections.0.payments.0.refunds.0.amount'],
  },
];

/** Sets body[a][b][c] = value for the path "a.b.c", creating objects where none are. */
function setPath(body: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node: Record<string, unknown> = body;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== 'object') node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  // defineProperty: a key named __proto__ must become a field of the body, not its prototype.
  Object.defineProperty(node, keys[keys.length - 1]!, { value, enumerable: true, configurable: true, writable: true });
}

type Change = { kind: 'field'; path: string; value: unknown } | { kind: 'extra'; key: string; value: unknown };
type Attempt = { route: Route; document: string | null; changes: Change[] };

const attempt: fc.Arbitrary<Attempt> = fc.constantFrom(...ROUTES).chain((route) =>
  fc.record({
    route: fc.constant(route),
    document: fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: hostileDocument }),
    changes: fc.array(
      fc.oneof(
        { weight: 4, arbitrary: fc.record({ kind: fc.constant('field' as const), path: fc.constantFrom(...route.paths), value: hostileValue }) },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant('extra' as const), key: extraKey, value: hostileValue }) },
      ),
      { minLength: 1, maxLength: 3 },
    ),
  }),
);

function bodyText(world: World, { route, document, changes }: Attempt): string {
  if (document !== null) return document;
  const body = route.valid(world);
  for (const change of changes) setPath(body, change.kind === 'field' ? change.path : change.key, change.value);
  return toJson(body);
}

function describeAttempt(a: Attempt, text: string): string {
  return `${a.route.path} ${text.length > 300 ? `${text.slice(0, 300)}… (${text.length} characters)` : text}`;
}

// ---- every row of the brand, before and after -------------------------------------------------

async function brandTables(db: Knex): Promise<string[]> {
  const rows = await db('information_schema.columns')
    .join('information_schema.tables', function () {
      this.on('information_schema.tables.table_name', 'information_schema.columns.table_name').andOn('information_schema.tables.table_schema', 'information_schema.columns.table_schema');
    })
    .where({ 'information_schema.columns.column_name': 'brand_id', 'information_schema.tables.table_type': 'BASE TABLE' })
    .whereRaw('information_schema.columns.table_schema = current_schema()')
    .select('information_schema.columns.table_name as name');
  return rows.map((row: { name: string }) => row.name).sort();
}

/** One line per table: its row count and a checksum of every row of this brand. */
async function snapshot(db: Knex, tables: string[], brandId: string): Promise<string> {
  const parts = tables.map((table) => db.raw(`SELECT ? || ':' || count(*) || ':' || coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '') AS line FROM ?? t WHERE brand_id = ?`, [table, table, brandId]).toQuery());
  const { rows } = await db.raw(parts.join(' UNION ALL '));
  return rows.map((row: { line: string }) => row.line).join('\n');
}

describe('hostile bodies on every POST route', () => {
  it(`never answer 5xx, and change no row unless they answer 2xx (seed ${SEED}, ${RUNS} runs)`, async () => {
    const brand = await givenBrand(t.db, { plan: 'premier' });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const other = await givenAdvocate(t.db, brand.brandId);
    const orderId = uniqueOrderId();
    const converted = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'buyer@example.com', order_id: orderId, order_value: 1000, referral_code: advocate.code });
    expect(converted.status).toBe(201);
    const world: World = { brand, code: advocate.code, otherCode: other.code, orderId };
    const tables = await brandTables(t.db);
    expect(tables).toEqual(expect.arrayContaining(['claims', 'conversions', 'refunds', 'reward_ledger', 'visits', 'medusa_deliveries']));

    const statuses: Record<string, number> = {};
    // The brand's rows as the last refused body left them: unchanged until a body is accepted (only
    // this file's requests write to this brand; the app runs no background workers).
    let unchanged: string | null = null;
    const property = fc.asyncProperty(attempt, async (a) => {
      const text = bodyText(world, a);
      const headers = a.route.signed ? signedHeaders(brand.brandId, brand.apiKey, text) : { ...brand.headers, 'Content-Type': 'application/json' };
      const before = unchanged ?? (await snapshot(t.db, tables, brand.brandId));
      unchanged = null;
      const response = await t.http.post(a.route.path).set(headers).send(text);
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      if (response.status >= 500) throw new Error(`${response.status} ${JSON.stringify(response.body)} for ${describeAttempt(a, text)}`);
      if (response.status >= 300) {
        const after = await snapshot(t.db, tables, brand.brandId);
        if (after !== before) throw new Error(`${response.status} changed rows:\n${before}\n→\n${after}\nfor ${describeAttempt(a, text)}`);
        unchanged = after;
      }
    });
    await fc.assert(property, { seed: SEED, numRuns: RUNS, endOnFailure: true });
    // The run must have reached both sides: bodies refused and bodies stored.
    expect(Object.keys(statuses).some((status) => Number(status) >= 400)).toBe(true);
    expect(Object.keys(statuses).some((status) => Number(status) < 300)).toBe(true);
  });
});

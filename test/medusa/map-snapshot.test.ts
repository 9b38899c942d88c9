import type { OrderSnapshot } from '../../connectors/medusa/plugin/src/lib/order-graph';
import { mapMedusaSnapshot } from '../../connectors/medusa/map-snapshot';
import { type MedusaSnapshotBody, minorOfMedusaAmount, parseMedusaSnapshot } from '../../connectors/medusa/snapshot-schema';
import { Invalid } from '../../core/errors';
import { type OrderState, snapshotBody } from './order-graphs';

/** A value after JSON.stringify: dates become strings (amounts' objects go through toJSON, accepted as they are). */
type AfterJson<T> = T extends Date ? string : T extends Array<infer U> ? Array<AfterJson<U>> : T extends object ? { [K in keyof T]: AfterJson<T[K]> } : T;

// What the plugin sends must be what the service accepts: this line stops compiling otherwise.
const pluginSendsWhatServiceReads = (snapshot: AfterJson<OrderSnapshot>): MedusaSnapshotBody => snapshot;
void pluginSendsWhatServiceReads;

function plan(state: OrderState, options: Parameters<typeof snapshotBody>[1] = {}) {
  return mapMedusaSnapshot(parseMedusaSnapshot(JSON.parse(snapshotBody(state, options))));
}

const order = (overrides: Partial<OrderState> = {}): OrderState => ({
  id: 'order_01JD7Q',
  email: ' Buyer@Example.com ',
  promotions: [{ code: 'ANN-REF', discount: 7 }],
  ...overrides,
});

describe('mapping a Medusa order snapshot to core calls', () => {
  it('placed then captured: nothing while unpaid, the paid order once paid_total > 0', () => {
    expect(plan(order({ paid: 'none' }), { event_name: 'order.placed' }).paid_order).toBeNull();

    const captured = plan(order({ paid: 'all' }), { event_name: 'payment.captured' });
    expect(captured.paid_order).toMatchObject({
      redeemed_codes: ['ANN-REF'],
      claim_source: 'medusa',
      conversion: {
        email: 'Buyer@Example.com',
        order_id: 'order_01JD7Q',
        order_value: 63,
        order_subtotal: 58,
        total_discount: 7,
        coupons_applied: [{ code: 'ANN-REF', discount_amount: 7 }],
        currency: 'EUR',
        source: 'medusa',
        status: 'completed',
        products: [
          { name: 'Black tee', quantity: 2, price: 25, line_total: 43, sku: 'TEE-BLK-M', attributes: { categories: ['Shirts'] } },
          { name: 'Mug', quantity: 1, price: 15, line_total: 15, sku: 'MUG-01', attributes: { categories: ['Kitchen'] } },
        ],
      },
    });
    expect(captured.refunds).toEqual([]);
    expect(captured.cancellation).toBeNull();
  });

  it('captured at checkout: order.placed alone carries the paid order', () => {
    expect(plan(order({ paid: 'all' }), { event_name: 'order.placed' }).paid_order?.conversion.order_value).toBe(63);
  });

  it('under conversionTrigger "placed" the order counts before it is paid', () => {
    expect(plan(order({ paid: 'none' }), { conversion_trigger: 'placed' }).paid_order).not.toBeNull();
  });

  it('a partial refund: its Medusa id and amount, not full', () => {
    const { refunds } = plan(order({ paid: 'all', refunds: [{ id: 'ref_01A', amount: 21, created_at: '2026-11-21T10:00:00Z', note: 'damaged' }] }));
    expect(refunds).toEqual([
      expect.objectContaining({ order_id: 'order_01JD7Q', refund_id: 'ref_01A', refund_amount: 21, is_full_refund: false, refund_reason: 'damaged', source: 'medusa' }),
    ]);
  });

  it('two refunds: oldest first, and the one reaching paid_total is full (it refunds what remains)', () => {
    const { refunds } = plan(
      order({
        paid: 'all',
        refunds: [
          { id: 'ref_02B', amount: 42, created_at: '2026-11-22T10:00:00Z' },
          { id: 'ref_01A', amount: 21, created_at: '2026-11-21T10:00:00Z' },
        ],
      }),
    );
    expect(refunds.map((refund) => [refund.refund_id, refund.refund_amount, refund.is_full_refund])).toEqual([
      ['ref_01A', 21, false],
      ['ref_02B', null, true],
    ]);
    expect(refunds[1]!.metadata).toMatchObject({ medusa_refund_amount: 42 });
  });

  it('a refund within one minor unit of paid_total is full', () => {
    const { refunds } = plan(order({ paid: 'all', refunds: [{ id: 'ref_01A', amount: 62.99, created_at: '2026-11-21T10:00:00Z' }] }));
    expect(refunds[0]).toMatchObject({ is_full_refund: true, refund_amount: null });
    const short = plan(order({ paid: 'all', refunds: [{ id: 'ref_01A', amount: 62.98, created_at: '2026-11-21T10:00:00Z' }] }));
    expect(short.refunds[0]).toMatchObject({ is_full_refund: false, refund_amount: 62.98 });
  });

  it('cancel after capture: the paid order, then a refund keyed cancel:<order id> of everything captured', () => {
    const canceled = plan(order({ paid: 'all', canceled: true }), { event_name: 'order.canceled' });
    expect(canceled.paid_order).not.toBeNull();
    expect(canceled.cancellation).toMatchObject({ order_id: 'order_01JD7Q', refund_id: 'cancel:order_01JD7Q', refund_amount: 63 });
  });

  it('cancel after a partial refund: the cancellation refunds what was captured and not yet refunded', () => {
    const refunds = [{ id: 'ref_01A', amount: 21, created_at: '2026-11-21T10:00:00Z' }];
    const canceled = plan(order({ paid: 'all', canceled: true, refunds }), { event_name: 'order.canceled' });
    expect(canceled.refunds.map((refund) => [refund.refund_id, refund.refund_amount])).toEqual([['ref_01A', 21]]);
    expect(canceled.cancellation).toMatchObject({ refund_id: 'cancel:order_01JD7Q', refund_amount: 42 });
  });

  it('cancel after Medusa refunded everything: no cancellation refund is left to make', () => {
    const refunds = [{ id: 'ref_01A', amount: 63, created_at: '2026-11-21T10:00:00Z' }];
    expect(plan(order({ paid: 'all', canceled: true, refunds }), { event_name: 'order.canceled' }).cancellation).toBeNull();
  });

  it('the order value is what was paid, also in a snapshot read after a refund lowered total by a credit line', () => {
    const refunds = [{ id: 'ref_01A', amount: 21, created_at: '2026-11-21T10:00:00Z' }];
    const body = JSON.parse(snapshotBody(order({ paid: 'all', refunds }), { event_name: 'payment.refunded' }));
    // Medusa 2.21 after refunding 21 of 63: total 42, paid_total still 63.
    expect([body.order.total, body.order.summary.paid_total]).toEqual([42, 63]);
    const mapped = mapMedusaSnapshot(parseMedusaSnapshot(body));
    expect(mapped.paid_order?.conversion).toMatchObject({ order_value: 63, order_subtotal: 58 });
  });

  it('a canceled order that was never paid converts nothing under the default trigger', () => {
    const canceled = plan(order({ paid: 'none', canceled: true }), { event_name: 'order.canceled' });
    expect(canceled.paid_order).toBeNull();
  });

  it('an automatic promotion is not a redeemed code, even when its code is also entered elsewhere', () => {
    const mapped = plan(order({ paid: 'all', promotions: [{ code: 'SUMMER', discount: 5, automatic: true }, { code: 'ANN-REF', discount: 7 }] }));
    expect(mapped.paid_order?.redeemed_codes).toEqual(['ANN-REF']);
    expect(mapped.paid_order?.conversion.coupons_applied).toEqual([{ code: 'ANN-REF', discount_amount: 7 }]);
    expect(mapped.paid_order?.conversion.total_discount).toBe(12);
  });

  it('a coupon that is not a referral code is still handed over: the core decides it attributes nothing', () => {
    const mapped = plan(order({ paid: 'all', promotions: [{ code: 'BLACKFRIDAY', discount: 7 }] }));
    expect(mapped.paid_order?.redeemed_codes).toEqual(['BLACKFRIDAY']);
    expect(mapped.paid_order?.conversion.referral_code ?? null).toBeNull();
  });

  it('an order without an email cannot be a conversion', () => {
    expect(plan(order({ paid: 'all', email: '' })).paid_order).toBeNull();
  });
});

describe('Medusa amounts', () => {
  it('arrive as numbers, strings or BigNumber-like objects and become exact cents', () => {
    expect(minorOfMedusaAmount(19.99, 2)).toBe(1999);
    expect(minorOfMedusaAmount('19.99', 2)).toBe(1999);
    expect(minorOfMedusaAmount('1e-7', 2)).toBe(0);
    expect(minorOfMedusaAmount({ value: '1234.565', precision: 20 }, 2)).toBe(123457);
    expect(minorOfMedusaAmount({ numeric: 0.1 + 0.2 }, 2)).toBe(30);
    expect(minorOfMedusaAmount('twelve', 2)).toBeNull();
    expect(minorOfMedusaAmount(true, 2)).toBeNull();
  });

  it('are read in the order currency\'s minor units: fils for KWD, whole yen for JPY', () => {
    expect(minorOfMedusaAmount(12.345, 3)).toBe(12345);
    expect(minorOfMedusaAmount({ value: '4.115', precision: 20 }, 3)).toBe(4115);
    expect(minorOfMedusaAmount('1500', 0)).toBe(1500);
    expect(minorOfMedusaAmount('12.3456', 4)).toBe(123456);
  });

  it('are read in the currency_code\'s decimals, or in the brand\'s currency when the order names none', () => {
    const body = JSON.parse(snapshotBody(order({ paid: 'all' })));
    body.order.summary.paid_total = '12.3456';
    expect(parseMedusaSnapshot({ ...body, order: { ...body.order, currency_code: 'kwd' } })).toMatchObject({ exponent: 3, order: { summary: { paid_total: 12346 } } });
    expect(parseMedusaSnapshot({ ...body, order: { ...body.order, currency_code: 'jpy' } })).toMatchObject({ exponent: 0, order: { summary: { paid_total: 12 } } });
    expect(parseMedusaSnapshot({ ...body, order: { ...body.order, currency_code: null } }, 'KWD')).toMatchObject({ exponent: 3, order: { summary: { paid_total: 12346 } } });
    expect(parseMedusaSnapshot(body)).toMatchObject({ exponent: 2, order: { summary: { paid_total: 1235 } } });
  });

  it('a malformed amount is a 400 that names its field', () => {
    const body = JSON.parse(snapshotBody(order({ paid: 'all' })));
    body.order.summary.paid_total = 'lots';
    expect(() => parseMedusaSnapshot(body)).toThrow(Invalid);
    expect(() => parseMedusaSnapshot(body)).toThrow(/order\.summary\.paid_total is not an amount: "lots"/);
  });

  it('a quantity must be a whole number of units', () => {
    const body = JSON.parse(snapshotBody(order()));
    body.order.items[1].quantity = 1.5;
    expect(() => parseMedusaSnapshot(body)).toThrow(/order\.items\.1\.quantity must be a positive whole number/);
  });
});

import { landingParameters, mapPaidOrder } from '../../connectors/shopify/map-paid-order';
import { mapRefund } from '../../connectors/shopify/map-refund';
import { parseLosslessJson } from '../../connectors/shopify/parse-lossless-json';
import { childrenFirst } from '../../connectors/shopify/privacy/shop-redact';
import { retryDelayMs } from '../../connectors/shopify/process-inbox';
import { verifyWebhookHmac, webhookSignature } from '../../connectors/shopify/verify-webhook';
import { Invalid } from '../../core/errors';
import { exactNumber, fixtureText, variant } from './shopify-test-kit';

const SHOP = 'jsmith.myshopify.com';

describe('Shopify payload mapping (pure, on the published fixtures)', () => {
  it('maps the order with discount code TENOFF to the conversion input: money, coupons, products', () => {
    const mapped = mapPaidOrder(parseLosslessJson(fixtureText('order-with-discount-code.shopify-api-fixture.json')), SHOP)!;
    const { conversion } = mapped;
    expect(conversion).toMatchObject({
      email: 'bob.norman@mail.example.com',
      customer_name: 'Bob Norman',
      order_id: '450789469',
      // current_total_price_set 199.65 + the refund the body shows (195.66 + 3.98 + 195.67 + 3.98).
      order_value: 598.94,
      // Shopify's subtotal is after discounts: 195.66 + 195.67 + 195.67.
      order_subtotal: 587,
      discount_applied: 10,
      total_discount: 10,
      currency: 'USD',
      source: 'shopify',
      status: 'completed',
      coupons_applied: [{ code: 'TENOFF', discount_amount: 10 }],
      metadata: { shop: SHOP, order_name: '#1001', total_tax: 11.94, shipping: 0 },
    });
    expect(conversion.referral_code).toBeUndefined();
    expect(mapped.redeemed_codes).toEqual(['TENOFF']);
    expect(conversion.products).toHaveLength(3);
    expect(conversion.products[0]).toEqual({
      name: 'IPod Nano - 8gb',
      quantity: 1,
      price: 199,
      line_total: 195.66,
      sku: 'IPOD2008GREEN',
      attributes: {
        line_item_id: '466157049',
        product_id: '632910392',
        variant_id: '39072856',
        variant_title: 'green',
        discount_allocations: [{ amount: 3.34, discount_application_index: 0 }],
      },
    });
    expect(conversion.products.map((line) => line.line_total)).toEqual([195.66, 195.67, 195.67]);
  });

  it('maps the documented orders/paid sample: contact email, current_* totals, shipping from total_shipping_price_set, two lines', () => {
    const { conversion, redeemed_codes, carried_codes, test } = mapPaidOrder(parseLosslessJson(fixtureText('orders-paid.webhook-sample.json')), SHOP)!;
    // current_total_price 398.00 and current_subtotal_price 398.00 (total_price 388.00 is before edits).
    expect(conversion).toMatchObject({ email: 'jon@example.com', order_value: 398, order_subtotal: 398, total_discount: 20, discount_applied: 0, currency: 'USD' });
    expect(test).toBe(true);
    // A body that does not list its refunds (reconcile's) cannot tell edits from refunds: the totals as placed.
    const withoutRefunds = variant(fixtureText('orders-paid.webhook-sample.json'), (order) => delete order.refunds);
    expect(mapPaidOrder(parseLosslessJson(withoutRefunds), SHOP).conversion).toMatchObject({ order_value: 388, order_subtotal: 388 });
    expect(conversion.metadata).toMatchObject({ shipping: 10, total_tax: 0, test: true });
    expect(conversion.products.map((line) => [line.name, line.quantity, line.price, line.sku])).toEqual([
      ['IPod Nano - 8GB', 1, 199, 'IPOD2008PINK'],
      ['IPod Nano - 8GB', 1, 199, 'IPOD2008PINK'],
    ]);
    expect(redeemed_codes).toEqual([]);
    expect(carried_codes).toEqual([]);
  });

  it('keeps every digit of an order id above 2^53 (820982911946154508), and of line item ids', () => {
    const text = variant(fixtureText('orders-paid.webhook-sample.json'), (order) => {
      order.id = exactNumber('820982911946154508');
      order.line_items[0].id = exactNumber('866550311766439020');
    });
    expect(text).toContain('"id":820982911946154508');
    expect(JSON.parse(text).id).toBe(820982911946154500); // what a plain JSON.parse would have stored
    const { conversion } = mapPaidOrder(parseLosslessJson(text), SHOP)!;
    expect(conversion.order_id).toBe('820982911946154508');
    expect(conversion.products[0]!.attributes.line_item_id).toBe('866550311766439020');
  });

  it('takes the email from email, then contact_email, then customer.email; none → recorded with the customer id and phone it has', () => {
    const base = fixtureText('orders-paid.webhook-sample.json');
    const fromCustomer = variant(base, (order) => {
      order.email = null;
      order.contact_email = '';
      order.customer.email = 'Customer@Example.com';
    });
    expect(mapPaidOrder(parseLosslessJson(fromCustomer), SHOP)!.conversion.email).toBe('Customer@Example.com');
    const none = variant(base, (order) => {
      order.email = null;
      order.contact_email = null;
      order.phone = '+16135550142';
      order.customer.email = null;
      order.customer.id = exactNumber('115310627314723954');
    });
    const emailless = mapPaidOrder(parseLosslessJson(none), SHOP).conversion;
    expect(emailless.email).toBeNull();
    expect(emailless.metadata.customer).toEqual({ id: '115310627314723954', phone: '+16135550142' });
  });

  it('collects carried codes: cart attributes ref, referral_code, then landing_site ref, referral, adv, advocate', () => {
    const text = variant(fixtureText('order-with-discount-code.shopify-api-fixture.json'), (order) => {
      order.note_attributes = [
        { name: 'colour', value: 'green' },
        { name: 'referral_code', value: 'CART2' },
        { name: 'ref', value: 'CART1' },
        { name: 'visitor_id', value: '2d0f3c4e-8a51-4c6a-9d55-6f1b0f6a1e11' },
      ];
      order.landing_site = '/products/ipod?utm_source=x&advocate=ADV4&adv=ADV3&referral=LAND2&ref=LAND1';
    });
    const mapped = mapPaidOrder(parseLosslessJson(text), SHOP)!;
    expect(mapped.carried_codes).toEqual(['CART1', 'CART2', 'LAND1', 'LAND2', 'ADV3', 'ADV4']);
    expect(mapped.conversion.visitor_id).toBe('2d0f3c4e-8a51-4c6a-9d55-6f1b0f6a1e11');
    expect(landingParameters('http://www.example.com?source=abc')).toEqual([]);
    expect(landingParameters('::not a url::?ref=X')).toEqual(['X']);
  });

  it('refuses an order whose total is not an amount, naming the field', () => {
    const setBroken = variant(fixtureText('orders-paid.webhook-sample.json'), (order) => {
      order.current_total_price_set.shop_money.amount = 'lots';
    });
    expect(() => mapPaidOrder(parseLosslessJson(setBroken), SHOP)).toThrow(new Invalid('current_total_price_set.shop_money.amount is not an amount: "lots"'));
    // Reconcile's shape: shop money in the plain fields, no sets.
    const text = variant(fixtureText('orders-paid.webhook-sample.json'), (order) => {
      delete order.current_total_price_set;
      delete order.total_price_set;
      order.total_price = 'lots';
    });
    expect(() => mapPaidOrder(parseLosslessJson(text), SHOP)).toThrow(new Invalid('total_price is not an amount: "lots"'));
    const missing = variant(fixtureText('orders-paid.webhook-sample.json'), (order) => {
      delete order.total_price;
    });
    expect(() => mapPaidOrder(parseLosslessJson(missing), SHOP)).toThrow(/orders\/paid: total_price/);
  });

  it('maps the refunds/create sample (a restock only) to a refund of 0, keyed by the refund id', () => {
    const { refund, amount_minor } = mapRefund(parseLosslessJson(fixtureText('refunds-create.webhook-sample.json')), SHOP);
    expect(amount_minor).toBe(0);
    expect(refund).toMatchObject({ refund_id: '890088186047892400', order_id: '820982911946154500', refund_reason: 'Things were damaged', source: 'shopify' });
  });

  it('counts only successful refund transactions as money refunded', () => {
    const text = variant(fixtureText('refunds-create.webhook-sample.json'), (refund) => {
      refund.id = exactNumber('890088186047892319');
      refund.order_id = exactNumber('820982911946154508');
      refund.transactions = [
        { id: 1, kind: 'refund', status: 'success', amount: '150.10' },
        { id: 2, kind: 'refund', status: 'failure', amount: '99.00' },
        { id: 3, kind: 'refund', status: 'pending', amount: '5.00' },
        { id: 4, kind: 'void', status: 'success', amount: '7.00' },
        { id: 5, kind: 'refund', status: 'success', amount: '0.20' },
      ];
    });
    const { refund, amount_minor } = mapRefund(parseLosslessJson(text), SHOP);
    expect(amount_minor).toBe(15030);
    expect(refund).toMatchObject({ refund_id: '890088186047892319', order_id: '820982911946154508', refund_amount: 150.3 });
    expect(refund.metadata).toEqual({ shop: SHOP, transaction_ids: ['1', '5'] });
  });

  it('converts a refund transaction in the buyer\'s EUR to the shop\'s USD at the refund\'s own rate', () => {
    const { refund, amount_minor, transactions } = mapRefund(parseLosslessJson(fixtureText('refunds-create.usd-shop-eur-buyer.json')), SHOP);
    // 550.00 EUR; the refund's lines and taxes are 598.94 USD = 550.00 EUR.
    expect(amount_minor).toBe(59894);
    expect(refund).toMatchObject({ refund_id: '509562969', order_id: '450789469', refund_amount: 598.94 });
    expect(transactions).toEqual([{ transaction_id: '179259969', status: 'success', shop_minor: 59894, shop_exponent: 2, presentment_minor: 55000, presentment_exponent: 2, presentment_currency: 'EUR' }]);
    const noRate = variant(fixtureText('refunds-create.usd-shop-eur-buyer.json'), (payload) => {
      payload.transactions[0].currency = 'GBP';
    });
    expect(() => mapRefund(parseLosslessJson(noRate), SHOP)).toThrow(new Invalid('transactions.0: GBP amount with no shop-money amounts in the refund to convert it by'));
    const shopMoneySet = variant(fixtureText('refunds-create.usd-shop-eur-buyer.json'), (payload) => {
      payload.transactions[0].amount_set = { shop_money: { amount: '598.90', currency_code: 'USD' }, presentment_money: { amount: '550.00', currency_code: 'EUR' } };
    });
    expect(mapRefund(parseLosslessJson(shopMoneySet), SHOP).amount_minor).toBe(59890);
  });

  it('maps an order\'s money from shop_money: a USD shop selling in EUR', () => {
    const { conversion } = mapPaidOrder(parseLosslessJson(fixtureText('orders-paid.usd-shop-eur-buyer.json')), SHOP);
    expect(conversion).toMatchObject({ order_value: 598.94, order_subtotal: 587, total_discount: 10, currency: 'USD' });
    expect(conversion.metadata).toMatchObject({ presentment_currency: 'EUR', presentment_total: 550 });
    expect(conversion.products.map((line) => line.price)).toEqual([199, 199, 199]);
  });

  it('verifies base64 HMAC-SHA256 over the exact bytes, with any candidate secret', () => {
    const body = Buffer.from(fixtureText('customers-redact.template-sample.json'));
    // Worked out apart from the code: openssl dgst -sha256 -hmac secret-b -binary <fixture> | base64
    const signature = 'fQW+y8/q6VVH5j2MLj32groM7BbblU/UYJHTT666Yog=';
    expect(webhookSignature('secret-b', body)).toBe(signature);
    expect(verifyWebhookHmac(body, signature, ['secret-a', 'secret-b'])).toBe(true);
    expect(verifyWebhookHmac(body, signature, ['secret-a'])).toBe(false);
    expect(verifyWebhookHmac(Buffer.concat([body, Buffer.from(' ')]), signature, ['secret-b'])).toBe(false);
    expect(verifyWebhookHmac(body, undefined, ['secret-b'])).toBe(false);
    expect(verifyWebhookHmac(body, signature, [])).toBe(false);
  });

  it('backs off 10 s, 40 s, 160 s … up to 6 hours between attempts', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(retryDelayMs)).toEqual([10_000, 40_000, 160_000, 640_000, 2_560_000, 10_240_000, 21_600_000, 21_600_000]);
  });

  it('deletes tables that reference others before the tables they reference', () => {
    const order = childrenFirst(
      ['advocates', 'claims', 'conversion_products', 'conversions', 'refunds'],
      [
        { child: 'claims', parent: 'advocates' },
        { child: 'conversions', parent: 'advocates' },
        { child: 'conversion_products', parent: 'conversions' },
      ],
    );
    expect(order.indexOf('conversion_products')).toBeLessThan(order.indexOf('conversions'));
    expect(order.indexOf('conversions')).toBeLessThan(order.indexOf('advocates'));
    expect(order.indexOf('claims')).toBeLessThan(order.indexOf('advocates'));
    expect(order).toHaveLength(5);
  });
});

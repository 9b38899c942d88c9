import { mapRefund } from '../../connectors/shopify/map-refund';
import { parseLosslessJson } from '../../connectors/shopify/parse-lossless-json';
import { findBrand } from '../../core/brands/brand';
import { rewardBalance } from '../../core/ledger/reward-ledger';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { conversionOf, deliver, shopWithTenoff } from '../shopify/sales-shop';
import { fixtureText, installApp, referrals, setUpShopifyTests, uniqueShop, variant } from '../shopify/shopify-test-kit';

const context = setUpShopifyTests();

describe('a Shopify brand sells in its shop\'s currency', () => {
  it('install: a JPY shop\'s new brand is a JPY brand', async () => {
    const installed = await installApp(context.app, context.fake, undefined, 'premier', 'JPY');
    expect(await findBrand(context.app.db, installed.brandId)).toMatchObject({ currency: 'JPY' });
    expect(context.fake.graphqlCalls(installed.shop, 'ShopCurrency')).toHaveLength(1);
  });

  it('records a USD shop\'s order paid in EUR in shop money (USD), with no exchange rate, and credits the reward in USD', async () => {
    const shop = await shopWithTenoff(context, { reward_type: 'percentage', reward_value: 10 });
    expect(await deliver(context, shop, 'orders/paid', fixtureText('orders-paid.usd-shop-eur-buyer.json'))).toMatchObject({ outcome: 'conversion_recorded' });
    const conversion = await conversionOf(context, shop.brandId, '450789469');
    // 10 % of 598.94 USD = 59.894 → 59.89.
    expect(conversion).toMatchObject({ order_value: '598.94', currency: 'USD', exchange_rate: null, referrer_reward_paid: '59.89' });
    expect(conversion.metadata).toMatchObject({ presentment_currency: 'EUR', presentment_total: 550 });
    expect(await rewardBalance(context.app.db, shop.brandId, shop.advocate.advocateId)).toMatchObject({ currency: 'USD', balance: 59.89 });
  });

  it('connect: a brand that has recorded nothing takes the shop\'s currency', async () => {
    const brand = await givenBrand(context.app.db);
    const shop = uniqueShop();
    context.fake.customTokens.set(shop, 'shpat_eur');
    context.fake.currencies.set(shop, 'EUR');
    const run = await referrals(context.app, ['shopify', 'connect', '--brand', brand.brandId, '--shop', shop, '--access-token', 'shpat_eur', '--api-secret', 's', '--json']);
    expect(run.code).toBe(0);
    expect(await findBrand(context.app.db, brand.brandId)).toMatchObject({ currency: 'EUR' });
  });

  it('connect: a brand with conversions in another currency is refused, and stays as it was', async () => {
    const brand = await givenBrand(context.app.db);
    const advocate = await givenAdvocate(context.app.db, brand.brandId);
    const recorded = await context.app.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'a@example.com', order_id: uniqueOrderId(), order_value: 10, referral_code: advocate.code });
    expect(recorded.status).toBe(201);
    const shop = uniqueShop();
    context.fake.customTokens.set(shop, 'shpat_gbp');
    context.fake.currencies.set(shop, 'GBP');
    const run = await referrals(context.app, ['shopify', 'connect', '--brand', brand.brandId, '--shop', shop, '--access-token', 'shpat_gbp', '--api-secret', 's', '--json']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`the shop sells in GBP but brand ${brand.brandId} records in USD and has conversions`);
    expect(await findBrand(context.app.db, brand.brandId)).toMatchObject({ currency: 'USD' });
    expect(await context.app.db('shopify_shops').where({ shop_domain: shop })).toHaveLength(0);
  });
});

describe('a refund paid back in the buyer\'s currency (pure mapping)', () => {
  it('converts the EUR transaction at the refund\'s own rate into whole yen', () => {
    const body = variant(fixtureText('refunds-create.usd-shop-eur-buyer.json'), (refund) => {
      const yen = (shop: string, eur: string) => ({ shop_money: { amount: shop, currency_code: 'JPY' }, presentment_money: { amount: eur, currency_code: 'EUR' } });
      refund.refund_line_items = [{ ...refund.refund_line_items[0], subtotal: '1000', total_tax: '0', subtotal_set: yen('1000', '6.10'), total_tax_set: yen('0', '0.00') }];
      refund.transactions[0].amount = '2.00';
    });
    const mapped = mapRefund(parseLosslessJson(body), 'tokyo.myshopify.com');
    // 2.00 EUR × 1000 JPY / 6.10 EUR = 327.87 → 328 yen (half up), never a fraction of a yen.
    expect(mapped.transactions[0]).toMatchObject({ shop_minor: 328, shop_exponent: 0, presentment_minor: 200, presentment_exponent: 2, presentment_currency: 'EUR' });
    expect(mapped.refund.refund_amount).toBe(328);
  });

  it('converts a USD transaction of a KWD shop into fils, at the refund\'s own rate', () => {
    const body = variant(fixtureText('refunds-create.kwd-shop.json'), (refund) => {
      const fils = (kwd: string, usd: string) => ({ shop_money: { amount: kwd, currency_code: 'KWD' }, presentment_money: { amount: usd, currency_code: 'USD' } });
      Object.assign(refund.refund_line_items[0], { subtotal_set: fils('3.780', '12.29'), total_tax_set: fils('0.335', '1.09') });
      refund.total_duties_set = fils('0.000', '0.00');
      Object.assign(refund.transactions[0], { amount: '10.00', currency: 'USD' });
    });
    const mapped = mapRefund(parseLosslessJson(body), 'kuwait.myshopify.com');
    // 10.00 USD × 4.115 KWD / 13.38 USD = 3.07548… → 3.075 KWD (half up, at the fils).
    expect(mapped.transactions[0]).toMatchObject({ shop_minor: 3075, shop_exponent: 3, presentment_minor: 1000, presentment_exponent: 2, presentment_currency: 'USD' });
    expect(mapped.refund.refund_amount).toBe(3.075);
  });
});

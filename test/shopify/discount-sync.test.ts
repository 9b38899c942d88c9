import type { Knex } from 'knex';
import { adminApiForBrand } from '../../connectors/shopify/admin-api';
import { shopifyConnection } from '../../connectors/shopify/dashboard-connection';
import { syncDiscounts } from '../../connectors/shopify/discount-worker';
import { TEST_SECRET } from '../helpers/test-app';
import { connectedBrand as connectedShop, referrals, setUpShopifyTests } from './shopify-test-kit';

const context = setUpShopifyTests();
const cli = (argv: string[]) => referrals(context.app, argv);

/** A brand with `count` active advocates, each with one referral code, written in one statement. */
async function givenAdvocates(db: Knex, brandId: string, count: number, prefix: string): Promise<void> {
  await db.raw(
    `WITH made AS (
       INSERT INTO advocates (brand_id, email, email_normalized, first_name)
       SELECT ?, 'a' || n || '@' || ? || '.example', 'a' || n || '@' || ? || '.example', 'A' || n FROM generate_series(1, ?) AS n
       RETURNING advocate_id, first_name)
     INSERT INTO referral_codes (brand_id, code_normalized, code, advocate_id)
     SELECT ?, lower(? || advocate_id), ? || advocate_id, advocate_id FROM made`,
    [brandId, prefix, prefix, count, brandId, prefix, prefix],
  );
}

/** A brand connected to a fresh shop through a custom app granted `scopes`. */
const connectedBrand = (settings: object, scopes?: string[]) => connectedShop(context, settings, scopes);

/** Passes of the sync worker for one brand until it finds nothing to do. */
async function syncUntilIdle(brandId: string): Promise<void> {
  const { db } = context.app;
  for (let pass = 0; pass < 20; pass += 1) {
    const work = await syncDiscounts(db, {
      brandId,
      failedWaitSeconds: 0,
      sync: { pollMs: 1 },
      apiFor: (id) => adminApiForBrand(db, id, { encryptionSecret: TEST_SECRET, appConfig: null }),
    });
    if (work === 0) return;
  }
  throw new Error('the sync did not settle in 20 passes');
}

const calls = (shop: string, operation: string) => context.fake.graphqlCalls(shop, operation).length;

describe("the friend's offer as a Shopify code discount, every referral code one of its redeem codes", () => {
  it('links a shop with a 10 % offer and 1,200 advocates: one discount, 1,200 codes in 5 calls; 15 % updates it; a deactivated advocate loses their code', async () => {
    const { brand, shop } = await connectedBrand({ referee_discount_type: 'percentage', referee_discount_value: 10, referee_min_purchase: 50 });
    await givenAdvocates(context.app.db, brand.brandId, 1200, `NW${Date.now() % 100000}X`);
    await syncUntilIdle(brand.brandId);

    const [discount] = context.fake.discounts.get(shop)!;
    expect(context.fake.discounts.get(shop)).toHaveLength(1);
    expect(discount!.kind).toBe('basic');
    expect(discount!.input).toMatchObject({
      customerGets: { items: { all: true }, value: { percentage: 0.1 } },
      minimumRequirement: { subtotal: { greaterThanOrEqualToSubtotal: '50.00' } },
      appliesOncePerCustomer: true,
      combinesWith: { orderDiscounts: true, productDiscounts: true, shippingDiscounts: true },
      context: { all: 'ALL' },
    });
    expect(discount!.codes.size).toBe(1200);
    expect(calls(shop, 'AddReferralCodes')).toBe(5);
    expect(Math.max(...context.fake.costs.filter((cost) => cost.shop === shop).map((cost) => cost.cost))).toBeLessThanOrEqual(1000);
    const status = await cli(['shopify', 'codes', '--brand', brand.brandId, '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ shop, status: 'synced', discount_id: discount!.id, codes: { synced: 1200, pending: 0, refused: 0, to_remove: 0 } });

    const changed = await context.app.http.patch('/api/v1/brand').set(brand.headers).send({ referee_discount_value: 15, referee_individual_use: true });
    expect(changed.status).toBe(200);
    await syncUntilIdle(brand.brandId);
    expect(calls(shop, 'UpdateReferralDiscount')).toBe(1);
    expect(context.fake.discounts.get(shop)![0]!.input).toMatchObject({ customerGets: { value: { percentage: 0.15 } }, combinesWith: { orderDiscounts: false, productDiscounts: false, shippingDiscounts: false } });

    const advocate = await context.app.db('advocates').where({ brand_id: brand.brandId }).orderBy('advocate_id').first();
    const code = await context.app.db('referral_codes').where({ brand_id: brand.brandId, advocate_id: advocate.advocate_id }).first();
    expect((await context.app.http.post(`/api/v1/advocates/${advocate.advocate_id}/deactivate`).set(brand.headers)).status).toBe(200);
    await syncUntilIdle(brand.brandId);
    expect(calls(shop, 'DeleteReferralCodes')).toBe(1);
    expect(context.fake.discounts.get(shop)![0]!.codes.has(code.code.toLowerCase())).toBe(false);
    expect(context.fake.discounts.get(shop)![0]!.codes.size).toBe(1199);

    // Nothing left to do: a pass calls Shopify no more.
    const before = context.fake.requests.length;
    await syncUntilIdle(brand.brandId);
    expect(context.fake.requests.length).toBe(before);
  });

  it('records a code Shopify refuses with its reason, and replaces the discount when the offer becomes free shipping', async () => {
    const { brand, shop } = await connectedBrand({ referee_discount_type: 'fixed', referee_discount_value: 10 });
    const prefix = `FS${Date.now() % 100000}X`;
    await givenAdvocates(context.app.db, brand.brandId, 3, prefix);
    const refused = (await context.app.db('referral_codes').where({ brand_id: brand.brandId }).orderBy('code').first()).code;
    context.fake.refusedCodes.set(refused, 'Code is not allowed');
    context.fake.bulkPollsUntilDone = 3;
    try {
      await syncUntilIdle(brand.brandId);
    } finally {
      context.fake.refusedCodes.clear();
      context.fake.bulkPollsUntilDone = 1;
    }
    expect(context.fake.discounts.get(shop)![0]!.input.customerGets.value).toEqual({ discountAmount: { amount: '10.00', appliesOnEachItem: false } });
    const status = JSON.parse((await cli(['shopify', 'codes', '--brand', brand.brandId, '--json'])).stdout);
    expect(status.codes).toMatchObject({ synced: 2, refused: 1 });
    expect(status.refused).toEqual([{ code: refused, error: 'Code is not allowed' }]);

    await context.app.http.patch('/api/v1/brand').set(brand.headers).send({ referee_discount_type: 'free_shipping', referee_discount_value: 0 });
    await syncUntilIdle(brand.brandId);
    const discounts = context.fake.discounts.get(shop)!;
    expect(discounts).toHaveLength(1);
    expect(discounts[0]!.kind).toBe('free_shipping');
    expect(discounts[0]!.input).toMatchObject({ destination: { all: true } });
    expect(discounts[0]!.codes.size).toBe(3); // every code again, the once-refused one too

    // The merchant deletes the discount in Shopify's admin: the repair notices, the sync makes it again.
    discounts.splice(0, 1);
    const repaired = JSON.parse((await cli(['shopify', 'codes', '--brand', brand.brandId, '--repair', '--json'])).stdout);
    expect(repaired.repair).toEqual({ shop, discount_recreated: true, refused_retried: 0 });
    await syncUntilIdle(brand.brandId);
    expect(context.fake.discounts.get(shop)).toHaveLength(1);
    expect(context.fake.discounts.get(shop)![0]!.codes.size).toBe(3);
  });

  it('says what to do when the app lacks write_discounts, or the offer is a capped percentage', async () => {
    const { brand } = await connectedBrand({ referee_discount_type: 'percentage', referee_discount_value: 10 }, ['read_orders']);
    await givenAdvocates(context.app.db, brand.brandId, 2, `NS${Date.now() % 100000}X`);
    await syncUntilIdle(brand.brandId);
    const missing = JSON.parse((await cli(['shopify', 'codes', '--brand', brand.brandId, '--json'])).stdout);
    expect(missing).toMatchObject({ status: 'failed', codes: { pending: 2 } });
    expect(missing.last_error).toContain('write_discounts');
    // The dashboard's Shopify section says it too.
    const section = await shopifyConnection(context.app.db, brand.brandId);
    expect(section!.facts).toContainEqual(["Friend's offer at checkout", 'failed: 0 of 2 referral codes are Shopify discount codes, 2 pending']);
    expect(section!.actions.join(' ')).toContain('Grant the app the write_discounts scope');

    const capped = await context.app.http.patch('/api/v1/brand').set(brand.headers).send({ referee_discount_cap: 20 });
    expect(capped.status).toBe(400);
    expect(capped.body.error).toMatch(/^referee_discount_cap: Shopify's code discounts cannot cap a percentage/);
  });

  it("gives a Shopify brand's advocates Shopify's discount link: the code applied at checkout, the visit attributed", async () => {
    const { brand, shop } = await connectedBrand({});
    const created = await context.app.http.post('/api/v1/advocates').set(brand.headers).send({ email: `ann-${Date.now()}@example.com`, first_name: 'Ann', code: `ANN${Date.now() % 100000}` });
    expect(created.status).toBe(201);
    const code = created.body.data.referral_codes[0];
    expect(created.body.data.share_link).toBe(`https://${shop}/discount/${code}?redirect=%2F%3Fref%3D${code}`);
  });
});

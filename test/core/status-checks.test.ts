import { CODE_KINDS } from '../../core/advocates/code-kind';
import { ACCOUNT_MAILS } from '../../core/accounts/account-mail';
import { MERCHANT_ROLES } from '../../core/accounts/merchant-users';
import { IMPORT_STATUSES } from '../../core/advocates/advocate-imports';
import { ADVOCATE_STATUSES } from '../../core/advocates/advocate-status';
import { ATTRIBUTION_MODELS, PLANS, REFEREE_OFFER_TYPES, REWARD_TYPES } from '../../core/brands/brand';
import { MAIL_TEMPLATES } from '../../core/mail/mail-templates';
import { BRAND_STATUSES } from '../../core/brands/brand-status';
import { CLAIM_STATUSES } from '../../core/claims/claim-status';
import { DISCOUNT_TYPES } from '../../core/claims/discount-type';
import { CONVERSION_STATUSES } from '../../core/conversions/conversion-status';
import { REFERRAL_TYPES } from '../../core/conversions/referral-type';
import { REVIEW_STATUSES } from '../../core/fraud/reviews';
import { LEDGER_ENTRY_KINDS } from '../../core/ledger/entry-kind';
import { CREDIT_DEBIT_STATUSES } from '../../core/rewards/record-credit-debit';
import { givenAdvocate, givenBrand } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

/** The values a `column IN (...)` CHECK constraint allows, read from the catalog. */
async function allowedBy(constraint: string): Promise<string[]> {
  const { rows } = await t.db.raw('SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = ?', [constraint]);
  if (rows.length !== 1) throw new Error(`constraint ${constraint} not found`);
  return [...String(rows[0].definition).matchAll(/'([^']*)'/g)].map((match) => match[1]!).sort();
}

describe('statuses and kinds: the unions in core and the CHECKs in the database agree', () => {
  it.each([
    ['claims_status_check', CLAIM_STATUSES],
    ['claims_type_check', REFERRAL_TYPES],
    ['claims_discount_type_check', DISCOUNT_TYPES],
    ['conversions_status_check', CONVERSION_STATUSES],
    ['conversions_type_check', REFERRAL_TYPES],
    ['conversions_discount_type_check', DISCOUNT_TYPES],
    ['refunds_status_after_check', CONVERSION_STATUSES],
    ['reward_ledger_kind_check', LEDGER_ENTRY_KINDS],
    ['reward_credit_debits_status_check', CREDIT_DEBIT_STATUSES],
    ['referral_codes_kind_check', CODE_KINDS],
    ['brands_plan_check', PLANS],
    ['brands_status_check', BRAND_STATUSES],
    ['brands_reward_type_check', REWARD_TYPES],
    ['brands_referee_discount_type_check', REFEREE_OFFER_TYPES],
    ['brands_attribution_model_check', ATTRIBUTION_MODELS],
    ['referral_reviews_status_check', REVIEW_STATUSES],
    ['merchant_users_role_check', MERCHANT_ROLES],
    ['advocate_imports_status_check', IMPORT_STATUSES],
    ['advocates_status_check', ADVOCATE_STATUSES],
    ['mail_messages_template_check', [...MAIL_TEMPLATES, ...ACCOUNT_MAILS]],
  ])('%s allows exactly the values of its union', async (constraint, values) => {
    expect(await allowedBy(constraint)).toEqual([...values].sort());
  });

  it('refuses a claim status no one knows', async () => {
    const brand = await givenBrand(t.db);
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const claim = { brand_id: brand.brandId, advocate_id: advocate.advocateId, referral_code: advocate.code, email: 'x@example.com', email_normalized: 'x@example.com' };
    await expect(t.db('claims').insert({ ...claim, status: 'lost' })).rejects.toMatchObject({ code: '23514', constraint: 'claims_status_check' });
    await expect(t.db('claims').insert({ ...claim, status: 'converted' })).resolves.toBeDefined();
  });
});

describe('POST /api/v1/track/refund with new_status', () => {
  it('sets the conversion completed again and its claim converted (a claim has no status completed)', async () => {
    const brand = await givenBrand(t.db, { plan: 'premier' });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const claim = await t.http.post('/api/v1/track/claim').set(brand.headers).send({ referral_code: advocate.code, email: 'back@example.com', raw_value: 50 });
    expect(claim.status).toBe(201);
    const order = { email: 'back@example.com', order_id: `back-${claim.body.data.claim_id}`, order_value: 50, claim_id: claim.body.data.claim_id };
    expect((await t.http.post('/api/v1/track/conversion').set(brand.headers).send(order)).status).toBe(201);

    const refund = await t.http
      .post('/api/v1/track/refund')
      .set(brand.headers)
      .send({ order_id: order.order_id, refund_amount: 5, is_full_refund: false, new_status: 'completed' });
    expect(refund.status).toBe(200);
    expect(refund.body.data).toMatchObject({ status: 'completed', claim_updated: true, conversion_updated: true });
    expect(await t.db('conversions').where({ brand_id: brand.brandId, order_id: order.order_id }).first()).toMatchObject({ status: 'completed', refunded_total: '5.00' });
    expect(await t.db('claims').where({ brand_id: brand.brandId, claim_id: claim.body.data.claim_id }).first()).toMatchObject({ status: 'converted', refunded_total: '5.00' });
  });
});

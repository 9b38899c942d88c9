import type { Knex } from 'knex';
import { type ReferralCodeOwner, toCodeOwner } from '../advocates/advocates';
import type { Brand } from '../brands/brand';
import type { ConversionInput } from '../conversions/conversion-input';
import type { ConversionMoney } from '../conversions/conversion-money';
import { amountFromMinor, minorFromDecimal, toMinor } from '../money';
import { REWARD_CODE } from '../rewards/issue-rewards';
import type { ClaimStatus } from './claim-status';
import { createClaimFor } from './create-claim';

/**
 * A paid order that used an advocate's reward code (docs/merchants/reward-lifecycle.md "Fulfilment")
 * is that advocate's claim (`type: advocate`), recorded as a REST advocate claim is: it redeems what
 * the order took of the code's money (the rest returns to the balance), and a refund of the order
 * returns it as any advocate claim's. Once per issue, however often the order is reported; an order
 * with no email has no claim (a claim is about an email), and its code stays unspent here.
 */
export async function spendRewardCodes(trx: Knex.Transaction, brand: Brand, input: ConversionInput & { email: string | null }, money: ConversionMoney, source: string): Promise<void> {
  const codes = (input.coupons_applied ?? []).map((coupon) => coupon.code.toUpperCase()).filter((code) => REWARD_CODE.test(code));
  if (codes.length === 0 || !input.email) return;
  // Whatever its status: an order carrying the code shows the store had it. Being taken back (revoking), it
  // is spent instead; already taken back (revoked: its money returned), the order still spends its amount.
  const issues: Array<{ issue_id: string; advocate_id: string; amount: string; code: string }> = await trx('reward_issues')
    .where({ brand_id: brand.brand_id })
    .whereNull('spent_claim_id')
    .whereIn('code', codes)
    .orderBy('issue_id')
    .forUpdate()
    .select('issue_id', 'advocate_id', 'amount', 'code');
  const exponent = money.brandCurrency.exponent;
  for (const issue of issues) {
    const owner = await advocateOwner(trx, brand.brand_id, Number(issue.advocate_id));
    if (!owner) continue;
    // What this code took off the order (the platform's figure; else the code's amount): the claim's discount.
    const coupon = input.coupons_applied.find((entry) => entry.code.toUpperCase() === issue.code);
    const discount = toMinor(coupon?.discount_amount ?? Number(issue.amount), money.currency.exponent);
    const claim = await createClaimFor(
      trx,
      brand,
      owner,
      {
        referral_code: owner.code,
        email: input.email,
        customer_name: input.customer_name,
        order_id: input.order_id,
        raw_value: amountFromMinor(money.order_value + discount, money.currency.exponent),
        claim_value: input.order_value,
        type: 'advocate',
        products: input.products,
        coupons_applied: input.coupons_applied,
        metadata: { reward_code: issue.code },
        source,
      },
      money.brandCurrency,
      { enforceEligibility: false, onDuplicate: 'reuse', spendsIssue: { issueId: Number(issue.issue_id), amount: minorFromDecimal(issue.amount, exponent) } },
    );
    // The order is paid already: the claim is converted, so it is never a pending claim that makes a later order a referral.
    await trx('claims').where({ brand_id: brand.brand_id, claim_id: claim.claim_id, status: 'pending' satisfies ClaimStatus }).update({ status: 'converted' satisfies ClaimStatus, updated_at: trx.fn.now() });
    await trx('reward_issues')
      .where({ brand_id: brand.brand_id, issue_id: issue.issue_id })
      .update({ spent_claim_id: claim.claim_id, status: trx.raw("CASE WHEN status = 'revoking' THEN 'used' ELSE status END") });
  }
}

/** The advocate's first referral code and its owner (whatever the advocate's status: their code was issued). */
async function advocateOwner(trx: Knex.Transaction, brandId: string, advocateId: number): Promise<ReferralCodeOwner | null> {
  const row = await trx('referral_codes as c')
    .join('advocates as a', function joinAdvocate() {
      this.on('a.brand_id', 'c.brand_id').andOn('a.advocate_id', 'c.advocate_id');
    })
    .where({ 'c.brand_id': brandId, 'c.advocate_id': advocateId, 'c.kind': 'referral' })
    .orderBy('c.created_at')
    .first('c.code', 'c.code_normalized', 'c.kind', 'c.advocate_id', 'a.email_normalized', 'a.first_name');
  return row ? toCodeOwner(row) : null;
}

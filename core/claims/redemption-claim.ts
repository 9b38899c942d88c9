import type { Knex } from 'knex';
import type { ReferralCodeOwner } from '../advocates/advocates';
import type { Brand } from '../brands/brand';
import type { ConversionInput } from '../conversions/conversion-input';
import type { ConversionMoney } from '../conversions/conversion-money';
import { amountFromMinor } from '../money';
import type { ClaimRecord } from './claim-records';
import { createClaimFor } from './create-claim';

/**
 * The claim a platform order's referral discount code stands for: created from the order (raw
 * value = paid + discount), or the customer's claim with that code from the last 24 h. The
 * platform already granted the discount, so eligibility is not enforced: we record what happened.
 * The amounts come from the order's money, checked and in minor units already.
 */
export function claimForRedemption(
  trx: Knex.Transaction,
  brand: Brand,
  owner: ReferralCodeOwner,
  order: ConversionInput & { email: string },
  source: string,
  money: ConversionMoney,
): Promise<ClaimRecord> {
  const discount = money.total_discount ?? money.discount_applied ?? 0;
  return createClaimFor(
    trx,
    brand,
    owner,
    {
      referral_code: owner.code,
      email: order.email,
      customer_name: order.customer_name,
      order_id: order.order_id,
      raw_value: amountFromMinor(money.order_value + discount, money.currency.exponent),
      claim_value: order.order_value,
      type: 'referral',
      products: order.products,
      coupons_applied: order.coupons_applied,
      metadata: {},
      source,
    },
    money.brandCurrency,
    { enforceEligibility: false, onDuplicate: 'reuse' },
  );
}

import type { Knex } from 'knex';
import type { ReferralCodeOwner } from '../advocates/advocates';
import type { Brand } from '../brands/brand';
import type { ConversionInput } from '../conversions/conversion-input';
import { currencyExponent, requireCurrency } from '../currency';
import { amountFromMinor, toMinor } from '../money';
import type { ClaimRecord } from './claim-records';
import { createClaimFor } from './create-claim';

/**
 * The claim a platform order's referral discount code stands for: created from the order (raw
 * value = paid + discount), or the customer's claim with that code from the last 24 h. The
 * platform already granted the discount, so eligibility is not enforced: we record what happened.
 */
export function claimForRedemption(
  trx: Knex.Transaction,
  brand: Brand,
  owner: ReferralCodeOwner,
  order: ConversionInput & { email: string },
  source: string,
): Promise<ClaimRecord> {
  // The order's amounts were checked against its currency before it got here.
  const exponent = currencyExponent(order.currency == null ? brand.currency : requireCurrency(order.currency));
  const paid = toMinor(order.order_value, exponent);
  const discount = toMinor(order.total_discount ?? order.discount_applied ?? 0, exponent);
  return createClaimFor(
    trx,
    brand,
    owner,
    {
      referral_code: owner.code,
      email: order.email,
      customer_name: order.customer_name,
      order_id: order.order_id,
      raw_value: amountFromMinor(paid + discount, exponent),
      claim_value: order.order_value,
      type: 'referral',
      products: order.products,
      coupons_applied: order.coupons_applied,
      metadata: {},
      source,
    },
    { enforceEligibility: false, onDuplicate: 'reuse' },
  );
}

import type { Knex } from 'knex';
import type { Brand } from '../brands/brand';
import type { ConversionInput } from '../conversions/conversion-input';
import { canonicalIp } from './client-ip';
import { type FraudReason, NO_SIGNALS, type ScreenedOrder, activeLimit, fraudReasons } from './fraud-rules';
import { fraudSignals } from './fraud-signals';

/** What the rules read of a conversion's input. */
export function screenedOrder(input: ConversionInput): ScreenedOrder {
  return { email: input.email, customer_id: input.customer_id ?? null, visitor_id: input.visitor_id || null, ip: canonicalIp(input.customer_ip) };
}

/**
 * The brand's fraud rules on a new conversion of `advocateId`, before it is written (same
 * transaction): the reasons to hold it for review, none when it is clean. One query at most; none
 * when no rule needs the database. An advocate spending their own reward (type advocate) earns
 * nothing, so there is nothing to hold.
 */
export async function screenConversion(trx: Knex.Transaction, brand: Brand, input: ConversionInput, advocateId: number): Promise<FraudReason[]> {
  if (input.type === 'advocate') return [];
  const order = screenedOrder(input);
  const counts = brand.fraud_velocity && (activeLimit(brand.fraud_max_per_advocate_hour) !== null || activeLimit(brand.fraud_max_per_ip_day) !== null);
  const signals = brand.fraud_self_referral || counts ? await fraudSignals(trx, brand.brand_id, brand, advocateId, order) : NO_SIGNALS;
  return fraudReasons(brand, order, signals);
}

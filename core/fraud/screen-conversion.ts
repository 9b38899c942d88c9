import type { Brand } from '../brands/brand';
import type { ConversionInput } from '../conversions/conversion-input';
import { canonicalIp } from './client-ip';
import { type FraudReason, type FraudSignals, type ScreenedOrder, activeLimit, fraudReasons } from './fraud-rules';

/** What the rules read of a conversion's input. */
export function screenedOrder(input: ConversionInput): ScreenedOrder {
  return { email: input.email, customer_id: input.customer_id ?? null, visitor_id: input.visitor_id || null, ip: canonicalIp(input.customer_ip) };
}

/**
 * Whether the brand's rules need the database's signals (core/fraud/fraud-signals.ts) for this
 * order: not when no rule reads them, nor for an advocate spending their own reward (type
 * advocate), which earns nothing, so there is nothing to hold.
 */
export function needsSignals(brand: Brand, input: ConversionInput): boolean {
  if (input.type === 'advocate') return false;
  const counts = brand.fraud_velocity && (activeLimit(brand.fraud_max_per_advocate_hour) !== null || activeLimit(brand.fraud_max_per_ip_day) !== null);
  return brand.fraud_self_referral || counts;
}

/**
 * The brand's fraud rules on a new conversion, before it is written: the reasons to hold it for
 * review, none when it is clean. `signals`: what the database says (NO_SIGNALS when not needed).
 */
export function screenConversion(brand: Brand, input: ConversionInput, signals: FraudSignals): FraudReason[] {
  if (input.type === 'advocate') return [];
  return fraudReasons(brand, screenedOrder(input), signals);
}

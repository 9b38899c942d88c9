import type { Brand } from '../brands/brand';
import { disposableDomain, emailIdentity } from './email-identity';

/** Why a conversion is held for review; the review keeps each with a sentence of detail. */
export const FRAUD_REASONS = ['self_referral', 'velocity', 'disposable_email'] as const;
export type FraudReasonCode = (typeof FRAUD_REASONS)[number];
export interface FraudReason {
  code: FraudReasonCode;
  detail: string;
}

export type FraudSettings = Pick<
  Brand,
  'fraud_self_referral' | 'fraud_velocity' | 'fraud_disposable_email' | 'fraud_max_per_advocate_hour' | 'fraud_max_per_ip_day' | 'fraud_ip_window_days'
>;

/** What the order says about its shopper. */
export interface ScreenedOrder {
  email: string | null;
  customer_id: string | null;
  visitor_id: string | null;
  /** Canonical (core/fraud/client-ip.ts), or null when the caller sent none. */
  ip: string | null;
}

/** What the signals query found about the order's advocate and shopper (core/fraud/fraud-signals.ts). */
export interface FraudSignals {
  advocate_email: string | null;
  /** The customer id, visitor id or IP is one the advocate used themselves. */
  same_customer: boolean;
  same_visitor: boolean;
  same_ip: boolean;
  /** The advocate's conversions in the last hour and the IP's in the last day, before this one (capped at the limit). */
  advocate_last_hour: number;
  ip_last_day: number;
}

export const NO_SIGNALS: FraudSignals = { advocate_email: null, same_customer: false, same_visitor: false, same_ip: false, advocate_last_hour: 0, ip_last_day: 0 };

/** A limit that is set: 0 or null means no limit. */
export function activeLimit(limit: number | null): number | null {
  return limit != null && limit > 0 ? limit : null;
}

/** The brand's rules applied to one order: every rule that fires, in a fixed order (none: not flagged). */
export function fraudReasons(brand: FraudSettings, order: ScreenedOrder, signals: FraudSignals): FraudReason[] {
  const reasons: FraudReason[] = [];
  if (brand.fraud_self_referral) {
    const self = (detail: string) => reasons.push({ code: 'self_referral', detail });
    if (order.email !== null && signals.advocate_email !== null && emailIdentity(order.email) === emailIdentity(signals.advocate_email)) {
      self("email is the advocate's own (compared without case, +tags and Gmail dots)");
    }
    if (signals.same_customer) self('customer_id is one the advocate ordered with');
    if (signals.same_visitor) self('visitor_id is one the advocate used');
    if (signals.same_ip) self(`ip_address is one the advocate used in the last ${brand.fraud_ip_window_days} days`);
  }
  if (brand.fraud_velocity) {
    const perAdvocate = activeLimit(brand.fraud_max_per_advocate_hour);
    if (perAdvocate !== null && signals.advocate_last_hour >= perAdvocate) {
      reasons.push({ code: 'velocity', detail: `more than ${perAdvocate} conversions for this advocate within an hour` });
    }
    const perIp = activeLimit(brand.fraud_max_per_ip_day);
    if (perIp !== null && order.ip !== null && signals.ip_last_day >= perIp) {
      reasons.push({ code: 'velocity', detail: `more than ${perIp} conversions from this IP address within a day` });
    }
  }
  if (brand.fraud_disposable_email && order.email !== null) {
    const domain = disposableDomain(order.email);
    if (domain !== null) reasons.push({ code: 'disposable_email', detail: `${domain} is a disposable email provider` });
  }
  return reasons;
}

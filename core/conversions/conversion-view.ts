import { amountFromDecimal, parseExchangeRate } from '../money';
import type { ConversionStatus } from './conversion-status';

/** The API's view of a stored conversion. */
export interface ConversionView {
  id: number;
  conversion_id: number;
  order_id: string | null;
  status: ConversionStatus;
  order_value: number;
  order_subtotal: number | null;
  discount_applied: number;
  total_discount: number;
  refunded_total: number;
  claim_id: number | null;
  advocate_id: number;
  referral_code: string | null;
  referrer_reward_paid: number;
  referee_reward_paid: number | null;
  /** ISO 4217: the order's amounts are in it; referrer_reward_paid is in the brand's currency. */
  currency: string | null;
  /** Brand-currency units per 1 unit of `currency`, as exact decimal text; null: the brand's currency. */
  exchange_rate: string | null;
  created_at: string;
}

/** A conversions row as the driver returns CONVERSION_VIEW_COLUMNS: bigints and numerics as exact strings. */
export interface ConversionRow {
  conversion_id: string;
  order_id: string | null;
  status: ConversionStatus;
  order_value: string;
  order_subtotal: string | null;
  discount_applied: string;
  total_discount: string;
  refunded_total: string;
  claim_id: string | null;
  advocate_id: string;
  referral_code: string | null;
  referrer_reward_paid: string;
  referee_reward_paid: string | null;
  currency: string | null;
  exchange_rate: string | null;
  created_at: Date;
}

export const CONVERSION_VIEW_COLUMNS = [
  'conversion_id', 'order_id', 'status', 'order_value', 'order_subtotal', 'discount_applied', 'total_discount',
  'refunded_total', 'claim_id', 'advocate_id', 'referral_code', 'referrer_reward_paid', 'referee_reward_paid', 'currency',
  'exchange_rate', 'created_at',
];

export function toConversionView(row: ConversionRow): ConversionView {
  const id = Number(row.conversion_id);
  return {
    id,
    conversion_id: id,
    order_id: row.order_id,
    status: row.status,
    order_value: amountFromDecimal(row.order_value),
    order_subtotal: row.order_subtotal === null ? null : amountFromDecimal(row.order_subtotal),
    discount_applied: amountFromDecimal(row.discount_applied),
    total_discount: amountFromDecimal(row.total_discount),
    refunded_total: amountFromDecimal(row.refunded_total),
    claim_id: row.claim_id === null ? null : Number(row.claim_id),
    advocate_id: Number(row.advocate_id),
    referral_code: row.referral_code,
    referrer_reward_paid: amountFromDecimal(row.referrer_reward_paid),
    referee_reward_paid: row.referee_reward_paid === null ? null : amountFromDecimal(row.referee_reward_paid),
    currency: row.currency,
    exchange_rate: row.exchange_rate === null ? null : parseExchangeRate(row.exchange_rate)!.text,
    created_at: new Date(row.created_at).toISOString(),
  };
}

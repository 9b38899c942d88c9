import type { Plan } from './brand';

/**
 * What each plan may use (spec "Authentication", rule 5), written once for the API's plan gates and
 * for platform orders: a redeemed referral code becomes a claim only where claims are allowed.
 */
export const FEATURE_PLANS = {
  /** Conversions, refunds, eligibility. */
  tracking: ['starter', 'growth', 'premier'],
  /** The claim endpoint, and claims recorded for platform discount redemptions. */
  claims: ['premier'],
  visits: ['premier'],
  /** The rewards endpoints (list, show, approve, void): every plan. */
  rewards: ['starter', 'growth', 'premier'],
} as const satisfies Record<string, readonly Plan[]>;
export type PlanFeature = keyof typeof FEATURE_PLANS;

export function planAllows(plan: Plan, feature: PlanFeature): boolean {
  return (FEATURE_PLANS[feature] as readonly Plan[]).includes(plan);
}

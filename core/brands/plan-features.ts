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

/** Each gated feature as a merchant reads it. */
const FEATURE_WORDS: Record<PlanFeature, string> = {
  tracking: 'referred orders, refunds and eligibility checks',
  claims: 'discount claims before checkout (and platform discount redemptions as claims)',
  visits: 'link visits: who landed from a share link, and through which channel',
  rewards: 'rewards: list, approve and void',
};

/** What the brand's plan includes and what needs another plan, in words (the dashboard says so where a feature is missing). */
export function planSummary(plan: Plan): { included: string[]; missing: Array<{ feature: PlanFeature; words: string; plans: string }> } {
  const features = Object.keys(FEATURE_PLANS) as PlanFeature[];
  const name = (each: Plan) => each[0]!.toUpperCase() + each.slice(1);
  return {
    included: features.filter((feature) => planAllows(plan, feature)).map((feature) => FEATURE_WORDS[feature]),
    missing: features.filter((feature) => !planAllows(plan, feature)).map((feature) => ({ feature, words: FEATURE_WORDS[feature], plans: FEATURE_PLANS[feature].map(name).join(' or ') })),
  };
}

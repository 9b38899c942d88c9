import type { Brand } from '../brands/brand';
import type { Executor } from '../db/transaction';
import { NotFound } from '../errors';
import { figuresAsShown, rewardBalance } from '../ledger/reward-ledger';
import { type IssuedReward, advocateIssues } from '../rewards/advocate-issues';
import { type AdvocateView, advocateView } from './advocate-page';
import { getAdvocate } from './advocates';
import { normalizeEmail } from './normalize';

/** An advocate's rewards by status, in major units of the brand's currency (the ledger's figures, docs/merchants/reward-lifecycle.md). */
export interface RewardsByStatus {
  currency: string;
  /** Held: pending and in-review rewards, net of refunds during the hold (the balance's `pending`). */
  held: number;
  /** Approved and not paid out; never below zero (what refunds took back beyond it is `owed`). */
  approved: number;
  /** Paid out. */
  paid: number;
  /** Owed from refunded orders, taken from the next rewards (the balance's `owed`). */
  owed: number;
}

/** What an advocate's own page shows: who they are, their code and link, the friends they referred, their rewards by status. */
export type AdvocateWithFigures = AdvocateView & {
  /** Friends whose orders were credited to them: their referral conversions, refunded ones left out. */
  friends_referred: number;
  rewards: RewardsByStatus;
  /** What they were handed to spend (codes), newest first: on its way, ready or used. */
  reward_codes: IssuedReward[];
};

/**
 * One advocate of the brand found by email (trimmed, any case), with their figures: what a platform
 * connector's storefront page shows the logged-in customer it knows by email (the Medusa plugin's
 * GET /store/referrals/me). An unknown address is a NotFound.
 */
export async function advocateByEmailWithFigures(db: Executor, brand: Brand, email: string): Promise<AdvocateWithFigures> {
  const row: { advocate_id: string | number } | undefined = await db('advocates')
    .where({ brand_id: brand.brand_id, email_normalized: normalizeEmail(email) })
    .first('advocate_id');
  if (!row) throw new NotFound('no advocate with this email: they have not joined the referral program');
  const advocateId = Number(row.advocate_id);
  const advocate = await getAdvocate(db, brand.brand_id, advocateId);
  return { ...advocateView(brand, advocate), ...(await advocateFigures(db, brand, advocateId)) };
}

/** One advocate's figures: every storefront page shows these (the Medusa plugin's /me, Shopify's app proxy page). */
export async function advocateFigures(db: Executor, brand: Brand, advocateId: number): Promise<Pick<AdvocateWithFigures, 'friends_referred' | 'rewards' | 'reward_codes'>> {
  const [friends] = (await db('conversions')
    .where({ brand_id: brand.brand_id, advocate_id: advocateId, type: 'referral' })
    .whereNot('status', 'refunded')
    .count({ count: '*' })) as Array<{ count: string | number }>;
  const balance = figuresAsShown(await rewardBalance(db, brand.brand_id, advocateId, brand.allow_pending_redemption));
  return {
    friends_referred: Number(friends?.count ?? 0),
    rewards: { currency: balance.currency, held: balance.pending, approved: balance.approved, paid: balance.paid, owed: balance.owed },
    reward_codes: await advocateIssues(db, brand.brand_id, advocateId),
  };
}

import type { RewardIssue, RewardPromotionGateway } from './reward-codes';
import { isOurs } from './reward-promotion-owner';

/**
 * A store_credit brand's reward issue in Medusa (docs/merchants/medusa.md "Store credit"): credited
 * to the advocate's customer account through the Store Credit Module (@medusajs/loyalty-plugin),
 * in the brand's currency. The credit carries the issue's code as its reference, and a run looks
 * for it before crediting: one that stops between the credit and its report finds it at the next
 * pull. Where the store runs no such module, or the advocate has no customer account, the issue's
 * code is made a promotion instead (reward-codes.ts) and reported as a code, with the reason; a
 * promotion found for the code is that decision, taken by an earlier run, and is never credited too.
 */

/** How a credit names the issue it carries (the module keeps `reference` and `reference_id` on each transaction). */
export interface CreditReference {
  reference: 'referral_reward';
  reference_id: string;
}

/** Medusa's store credit (medusa-store-credit.ts); absent (null) where the store does not run the module. */
export interface StoreCreditGateway {
  /** The credit transaction carrying this reference, on any account: one a run made before. */
  findCredit(reference: CreditReference): Promise<string | null>;
  /** The store's registered customer (not a guest checkout) with this email, the oldest; null when none. */
  customerAccountByEmail(email: string): Promise<string | null>;
  /** The customer's store credit account in the currency (lower case), made when they have none. */
  accountFor(customerId: string, currency: string): Promise<string>;
  /** Credits the account; returns the transaction's id. */
  credit(accountId: string, amount: number, reference: CreditReference, note: string): Promise<string>;
}

/** What became of a store credit issue: a credit, or a code in its place (and whether for want of a customer account). */
export type CreditOutcome = { method: 'store_credit'; transactionId: string } | { method: 'code'; noCustomerAccount: boolean };

export const creditReference = (issue: Pick<RewardIssue, 'code'>): CreditReference => ({ reference: 'referral_reward', reference_id: issue.code });

/**
 * The issue credited (or found credited), or decided a code: no module, no customer account, or a
 * promotion of ours made for it already. Throws Medusa's refusal.
 */
export async function creditOrCode(issue: RewardIssue, brandId: string, promotions: RewardPromotionGateway, credit: StoreCreditGateway | null): Promise<CreditOutcome> {
  const reference = creditReference(issue);
  const credited = credit && (await credit.findCredit(reference));
  if (credited) return { method: 'store_credit', transactionId: credited };
  const promotion = await promotions.findByCode(issue.code);
  if (promotion && isOurs(promotion, issue, brandId)) return { method: 'code', noCustomerAccount: promotion.metadata?.referrals_no_customer_account === true };
  if (!credit) return { method: 'code', noCustomerAccount: false };
  const customer = await credit.customerAccountByEmail(issue.advocate_email);
  if (!customer) return { method: 'code', noCustomerAccount: true };
  const account = await credit.accountFor(customer, issue.currency.toLowerCase());
  return { method: 'store_credit', transactionId: await credit.credit(account, issue.amount, reference, `Referral reward ${issue.code}`) };
}

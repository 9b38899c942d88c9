import type { Knex } from 'knex';
import { currencyExponent } from '../../core/currency';
import type { Executor } from '../../core/db/transaction';
import { decimalFromMinor, toMinor } from '../../core/money';
import { advocateFigures as coreFigures } from '../../core/advocates/advocate-figures';
import type { IssueMethod, IssueState } from '../../core/rewards/advocate-issues';
import type { Brand } from '../../core/brands/brand';

/** A shop's logged-in customer, as the app proxy's signed query names them. */
export interface StorefrontCustomer {
  brand_id: string;
  shop_domain: string;
  /** Shopify's customer id (`logged_in_customer_id`), digits. */
  customer_id: string;
}

/** The advocate a customer became by joining on the app proxy page; null when they have not. */
export async function mappedAdvocateId(db: Executor, customer: StorefrontCustomer): Promise<number | null> {
  const row: { advocate_id: string } | undefined = await db('shopify_storefront_customers')
    .where({ brand_id: customer.brand_id, shop_domain: customer.shop_domain, customer_id: customer.customer_id })
    .first('advocate_id');
  return row ? Number(row.advocate_id) : null;
}

/** Records who the customer became, once (a second join of the same customer keeps the first). */
export async function mapCustomer(trx: Knex.Transaction, customer: StorefrontCustomer, advocateId: number): Promise<void> {
  await trx('shopify_storefront_customers')
    .insert({ ...customer, advocate_id: advocateId })
    .onConflict(['brand_id', 'shop_domain', 'customer_id'])
    .ignore();
}

/** What the advocate's own page shows: money as decimals in the brand's currency. */
export interface AdvocateFigures {
  friends_referred: number;
  /** Rewards waiting for their hold to end or for a fraud review, net of refunds during the hold (the ledger's). */
  held: string;
  /** Approved and not yet paid out (never below zero: what refunds took back beyond it is owed). */
  approved: string;
  paid: string;
  /** Owed from refunded orders, taken from the next rewards. */
  owed: string;
  /** The reward codes they were handed, newest first (core/rewards/advocate-issues.ts), amounts as decimals. */
  reward_codes: Array<{ method: IssueMethod; code: string | null; amount: string; state: IssueState }>;
}

/** One advocate's figures (core's, the same on every storefront page), money as decimals with the brand currency's digits. */
export async function advocateFigures(db: Executor, brand: Brand, advocateId: number): Promise<AdvocateFigures> {
  const exponent = currencyExponent(brand.currency);
  const money = (value: number) => decimalFromMinor(toMinor(value, exponent), exponent);
  const { friends_referred, rewards, reward_codes } = await coreFigures(db, brand, advocateId);
  return {
    friends_referred,
    held: money(rewards.held),
    approved: money(rewards.approved),
    paid: money(rewards.paid),
    owed: money(rewards.owed),
    reward_codes: reward_codes.map((issue) => ({ method: issue.method, code: issue.code, amount: money(issue.amount), state: issue.state })),
  };
}

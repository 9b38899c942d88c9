import type { Knex } from 'knex';
import { currencyExponent } from '../../core/currency';
import type { Executor } from '../../core/db/transaction';
import { decimalFromMinor, minorFromDecimal } from '../../core/money';

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
  /** Rewards waiting for their hold to end or for a fraud review (`pending`, `in_review`). */
  held: string;
  /** Approved and not yet paid out. */
  approved: string;
  paid: string;
}

/**
 * One advocate's figures: the friends whose orders were credited to them (their referral
 * conversions, refunded ones excluded) and their rewards by status, voided ones left out.
 */
export async function advocateFigures(db: Executor, brandId: string, advocateId: number, currency: string): Promise<AdvocateFigures> {
  const exponent = currencyExponent(currency);
  const money = (value: string | number | null | undefined) => decimalFromMinor(minorFromDecimal(value ?? 0, exponent), exponent);
  const [friends] = (await db('conversions')
    .where({ brand_id: brandId, advocate_id: advocateId, type: 'referral' })
    .whereNot('status', 'refunded')
    .count({ count: '*' })) as Array<{ count: string | number }>;
  const rewards: { held: string | null; approved: string | null; paid: string | null } = await db('rewards')
    .where({ brand_id: brandId, advocate_id: advocateId })
    .first(
      db.raw("COALESCE(SUM(amount) FILTER (WHERE status IN ('pending', 'in_review')), 0) AS held"),
      db.raw("COALESCE(SUM(amount - paid_amount) FILTER (WHERE status = 'approved'), 0) AS approved"),
      db.raw("COALESCE(SUM(paid_amount) FILTER (WHERE status = 'approved'), 0) AS paid"),
    );
  return {
    friends_referred: Number(friends?.count ?? 0),
    held: money(rewards?.held),
    approved: money(rewards?.approved),
    paid: money(rewards?.paid),
  };
}

import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { type Brand, getBrand } from '../../core/brands/brand';
import { currencyExponent } from '../../core/currency';
import { decimalFromMinor, minorFromDecimal } from '../../core/money';
import type { IssueMethod } from '../../core/rewards/advocate-issues';
import { type IssuedOnPlatform, type LeasedIssue, recordIssued } from '../../core/rewards/record-issued';
import { recordIssueFailed } from '../../core/rewards/record-issue-failed';
import type { AdminApi } from './admin-api';
import { accessHint } from './discount-sync';
import { CREATE_REWARD_CODE, REWARD_CODE_BY_CODE } from './reward-code-documents';
import { StoreCreditRefused, creditReward } from './reward-store-credit';

/**
 * Turns a linked shop's reward issues (core/rewards/issue-rewards.ts) into single-use Shopify codes
 * (docs/merchants/shopify.md "Reward codes"), or store credit (reward-store-credit.ts). An issue is leased, its code looked up, created if
 * Shopify does not have it, and recorded as issued; the code is the issue's own (deterministic), so
 * a pass that stops between Shopify's answer and the commit leaves one code, found by the next.
 */

/** An issue as the worker leases it: a code or a store credit (a code when the advocate has no customer account) to make, or (revoking) a code to take back. */
export type IssueRow = LeasedIssue & { method: IssueMethod; credit_sent_at: Date | null; no_customer_account: boolean; status: string; expires_at: Date | null };

interface UserError {
  field: string[] | null;
  message: string;
}

/**
 * Leases up to `perShop` due issues of each linked shop, at most `limit` in all, oldest first
 * (SKIP LOCKED: any number of processes may run passes). A lease that outlives a crashed pass expires.
 */
export async function leaseIssues(db: Knex, options: { limit: number; perShop: number; leaseSeconds: number; brandId?: string }): Promise<Array<IssueRow & { shop_domain: string }>> {
  const { rows } = await db.raw(
    `WITH candidates AS (
       SELECT x.brand_id, x.issue_id, x.next_attempt_at FROM reward_issues x
        WHERE x.status IN ('pending', 'failed', 'revoking') AND x.next_attempt_at <= now() AND (x.lease_until IS NULL OR x.lease_until < now())
          AND EXISTS (SELECT 1 FROM shopify_shops s WHERE s.brand_id = x.brand_id AND s.status = 'installed')
          ${options.brandId ? 'AND x.brand_id = ?' : ''}
        ORDER BY x.next_attempt_at LIMIT ? FOR UPDATE OF x SKIP LOCKED),
     ranked AS (SELECT brand_id, issue_id, row_number() OVER (PARTITION BY brand_id ORDER BY next_attempt_at, issue_id) AS n FROM candidates)
     UPDATE reward_issues r SET lease_until = now() + make_interval(secs => ?)
       FROM ranked, shopify_shops s
      WHERE r.brand_id = ranked.brand_id AND r.issue_id = ranked.issue_id AND ranked.n <= ?
        AND s.brand_id = r.brand_id AND s.status = 'installed'
     RETURNING r.brand_id, r.issue_id, r.advocate_id, r.amount, r.currency, r.code, r.attempts, r.method, r.credit_sent_at, r.no_customer_account, r.status, r.expires_at, s.shop_domain`,
    [...(options.brandId ? [options.brandId] : []), options.limit, options.leaseSeconds, options.perShop],
  );
  return rows;
}

/** The advocate's Shopify customer, when they joined on the app proxy page logged in (storefront-customers.ts). */
export async function advocateCustomer(db: Knex, issue: Pick<IssueRow, 'brand_id' | 'advocate_id'>, shop: string): Promise<string | null> {
  const row: { customer_id: string } | undefined = await db('shopify_storefront_customers')
    .where({ brand_id: issue.brand_id, shop_domain: shop, advocate_id: issue.advocate_id })
    .orderBy('created_at')
    .first('customer_id');
  return row ? `gid://shopify/Customer/${row.customer_id}` : null;
}

/**
 * The code's discount: the issue's amount off the order (the brand's currency, which an install set
 * from the shop's), usable once, once per customer, and only by the advocate's own customer account
 * where the shop knows it (else by whoever has the code: it is sent to the advocate alone); ending
 * when the issue expires, if it does.
 */
export function rewardCodeInput(brand: Pick<Brand, 'name'>, issue: Pick<IssueRow, 'code' | 'amount' | 'currency' | 'expires_at'>, customerGid: string | null, startsAt: Date) {
  const exponent = currencyExponent(issue.currency);
  return {
    title: `${brand.name} referral reward ${issue.code}`,
    code: issue.code,
    startsAt: startsAt.toISOString(),
    ...(issue.expires_at ? { endsAt: new Date(issue.expires_at).toISOString() } : {}),
    usageLimit: 1,
    appliesOncePerCustomer: true,
    context: customerGid ? { customers: { add: [customerGid] } } : { all: 'ALL' },
    customerGets: { items: { all: true }, value: { discountAmount: { amount: decimalFromMinor(minorFromDecimal(issue.amount, exponent), exponent), appliesOnEachItem: false } } },
  };
}

/** Makes the issue's code on the shop, unless Shopify has it already. Returns its discount node id. */
async function createCode(db: Knex, api: AdminApi, issue: IssueRow & { shop_domain: string }): Promise<string> {
  const found = await api.request<{ codeDiscountNodeByCode: { id: string } | null }>(REWARD_CODE_BY_CODE, { code: issue.code });
  if (found.codeDiscountNodeByCode) return found.codeDiscountNodeByCode.id;
  const brand = await getBrand(db, issue.brand_id);
  const input = rewardCodeInput(brand, issue, await advocateCustomer(db, issue, issue.shop_domain), new Date());
  const data = await api.request<{ discountCodeBasicCreate: { codeDiscountNode: { id: string } | null; userErrors: UserError[] } }>(CREATE_REWARD_CODE, { discount: input });
  const { codeDiscountNode, userErrors } = data.discountCodeBasicCreate;
  if (userErrors.length > 0) throw new Error(userErrors.map((error) => `${(error.field ?? []).join('.') || 'discount'}: ${error.message}`).join('; '));
  if (!codeDiscountNode) throw new Error('Shopify created no discount');
  return codeDiscountNode.id;
}

/**
 * A store credit issue: credited to the advocate's customer, or, when they have none, decided a code
 * (committed before the code is made, so a later pass never credits what a code already carries).
 */
async function creditOrCode(db: Knex, api: AdminApi, issue: IssueRow & { shop_domain: string }): Promise<IssuedOnPlatform> {
  const credited = await creditReward(db, api, issue, await advocateCustomer(db, issue, issue.shop_domain));
  if (credited) return credited;
  await db('reward_issues').where({ brand_id: issue.brand_id, issue_id: issue.issue_id, method: 'store_credit' }).update({ method: 'code', no_customer_account: true });
  return { name: 'shopify', id: await createCode(db, api, issue), method: 'code', noCustomerAccount: true };
}

/** One issue: the code (or store credit) made, or found, and recorded; a refusal recorded with Shopify's reason and tried again later. Returns whether it was issued. */
export async function issueCode(db: Knex, apiFor: () => Promise<AdminApi>, issue: IssueRow & { shop_domain: string }, logger?: Logger): Promise<boolean> {
  try {
    const api = await apiFor();
    const made: IssuedOnPlatform =
      issue.method === 'store_credit'
        ? await creditOrCode(db, api, issue)
        : { name: 'shopify', id: await createCode(db, api, issue), method: 'code', noCustomerAccount: issue.no_customer_account };
    return await recordIssued(db, issue, made);
  } catch (error) {
    logger?.warn({ err: error, brand_id: issue.brand_id, issue_id: issue.issue_id }, 'shopify reward code not issued; tried again later');
    await recordIssueFailed(db, issue, error instanceof StoreCreditRefused ? error.message : accessHint(String((error as Error).message)));
    return false;
  }
}

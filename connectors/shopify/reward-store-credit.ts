import type { Knex } from 'knex';
import { currencyExponent } from '../../core/currency';
import { type Minor, decimalFromMinor, minorFromDecimal } from '../../core/money';
import type { IssuedOnPlatform, LeasedIssue } from '../../core/rewards/record-issued';
import type { AdminApi } from './admin-api';
import { CREDIT_REWARD, CUSTOMER_BY_EMAIL, RECENT_STORE_CREDITS } from './reward-store-credit-documents';

/**
 * A store_credit brand's reward issue credited to the advocate's Shopify customer account
 * (docs/merchants/shopify.md "Store credit"). Shopify documents no idempotency key for
 * storeCreditAccountCredit, so the time of the first credit sent is committed before it is sent,
 * and a retry after it first looks for a credit of the issue's amount made since then: a pass that
 * stops between Shopify's answer and the commit leaves one credit, found by the next.
 */

/** An issue of a store_credit brand as the worker leases it. */
export type CreditIssue = LeasedIssue & { credit_sent_at: Date | null };

/** A credit's refusal already worded for the merchant: not worded again as a discount's. */
export class StoreCreditRefused extends Error {}

/** The scopes store credit needs, named when Shopify refuses it. */
export const STORE_CREDIT_SCOPES = ['write_store_credit_account_transactions', 'read_store_credit_accounts', 'read_customers'] as const;

/** Seconds of clock difference between this database and Shopify allowed when a retry looks for its credit. */
const CLOCK_SLACK_SECONDS = 120;

/** Shopify's access refusal of a store credit call, with what the merchant does about it. */
export function storeCreditHint(message: string): string {
  return /access denied|store_credit|read_customers/i.test(message)
    ? `${message} Grant the app the ${STORE_CREDIT_SCOPES.join(', ')} scopes: reinstall it (public app), or add the scopes to the custom app and run \`referrals shopify connect\` again.`
    : message;
}

export const isAccessDenied = (error: unknown) => /access denied|ACCESS_DENIED/i.test(String((error as Error).message));

/** The customer whose email is the advocate's, when the app may read customers; null when none (or it may not). */
export async function customerByEmail(db: Knex, api: AdminApi, advocate: Pick<LeasedIssue, 'brand_id' | 'advocate_id'>): Promise<string | null> {
  const row: { email: string } | undefined = await db('advocates').where({ brand_id: advocate.brand_id, advocate_id: advocate.advocate_id }).first('email');
  if (!row) return null;
  try {
    const found = await api.request<{ customerByIdentifier: { id: string } | null }>(CUSTOMER_BY_EMAIL, { email: row.email });
    return found.customerByIdentifier?.id ?? null;
  } catch (error) {
    // Without read_customers the advocate is found only as a customer who joined signed in.
    if (isAccessDenied(error)) return null;
    throw error;
  }
}

/** A customer's store credit account in one currency: what it holds, and its latest transactions of one kind (amounts unsigned), newest first. */
export interface CreditAccount {
  id: string;
  balance: Minor;
  transactions: Array<{ id: string; createdAt: string; amount: Minor }>;
}

/** The customer's accounts in `currency`, with their 25 latest credits or debits. */
export async function creditAccounts(api: AdminApi, customer: string, currency: string, kind: 'credit' | 'debit'): Promise<CreditAccount[]> {
  type Money = { amount: string; currencyCode: string };
  const data = await api.request<{
    customer: { storeCreditAccounts: { nodes: Array<{ id: string; balance: Money; transactions: { nodes: Array<{ id?: string; createdAt?: string; amount?: Money }> } }> } } | null;
  }>(RECENT_STORE_CREDITS, { customer, currency: `currency_code:${currency}`, type: `type:${kind}` });
  const exponent = currencyExponent(currency);
  const inCurrency = (money: Money | undefined) => (money?.currencyCode === currency ? Math.abs(minorFromDecimal(money.amount, exponent)) : null);
  return (data.customer?.storeCreditAccounts.nodes ?? []).map((account) => ({
    id: account.id,
    balance: inCurrency(account.balance) ?? 0,
    transactions: account.transactions.nodes.flatMap((node) => (node.id && inCurrency(node.amount) !== null ? [{ id: node.id, createdAt: node.createdAt ?? '', amount: inCurrency(node.amount)! }] : [])),
  }));
}

/**
 * The transaction a retry sent before (Shopify keeps no idempotency key): the oldest of exactly
 * `amount` made since `sentAt` (less the clock slack) that `taken` does not say another row recorded.
 */
export async function sentTransaction(
  accounts: CreditAccount[],
  sent: { amount: Minor; sentAt: Date },
  taken: (ids: string[]) => Promise<Set<string>>,
): Promise<string | null> {
  const since = sent.sentAt.getTime() - CLOCK_SLACK_SECONDS * 1000;
  const candidates = accounts.flatMap((account) => account.transactions).filter((transaction) => transaction.amount === sent.amount && Date.parse(transaction.createdAt) >= since);
  if (candidates.length === 0) return null;
  const recorded = await taken(candidates.map((transaction) => transaction.id));
  // Oldest first: the first one sent.
  return candidates.reverse().find((transaction) => !recorded.has(transaction.id))?.id ?? null;
}

/** A credit of the issue's amount on the customer's account made since its first credit was sent (and not another issue's). */
async function sentCredit(db: Knex, api: AdminApi, issue: CreditIssue & { credit_sent_at: Date }, customer: string): Promise<string | null> {
  let accounts: CreditAccount[];
  try {
    accounts = await creditAccounts(api, customer, issue.currency, 'credit');
  } catch (error) {
    // Never credit again without knowing: the issue waits for the scope.
    throw new StoreCreditRefused(storeCreditHint(`could not check whether the credit sent at ${issue.credit_sent_at.toISOString()} was made: ${(error as Error).message}`));
  }
  const amount = minorFromDecimal(issue.amount, currencyExponent(issue.currency));
  return sentTransaction(accounts, { amount, sentAt: issue.credit_sent_at }, async (ids) =>
    new Set<string>(await db('reward_issues').where({ brand_id: issue.brand_id }).whereIn('platform_id', ids).pluck('platform_id')),
  );
}

/**
 * Credits the issue to the advocate's customer (`customer`: who they joined as, signed in; else
 * found by their email). Returns what Shopify made, or null when the advocate has no customer
 * account (the caller then issues a code).
 */
export async function creditReward(db: Knex, api: AdminApi, issue: CreditIssue, joinedAs: string | null): Promise<IssuedOnPlatform | null> {
  const customer = joinedAs ?? (await customerByEmail(db, api, issue));
  const key = { brand_id: issue.brand_id, issue_id: issue.issue_id };
  if (!customer) {
    if (issue.credit_sent_at) throw new StoreCreditRefused('the customer a credit was sent to is no longer found: check their store credit at Shopify');
    return null;
  }
  if (issue.credit_sent_at) {
    const found = await sentCredit(db, api, { ...issue, credit_sent_at: new Date(issue.credit_sent_at) }, customer);
    if (found) return { name: 'shopify', id: found, method: 'store_credit' };
  }
  // Committed before the call: a retry after it knows a credit may have been made, and since when.
  await db('reward_issues').where(key).whereNull('credit_sent_at').update({ credit_sent_at: db.fn.now() });
  const exponent = currencyExponent(issue.currency);
  const credit = { creditAmount: { amount: decimalFromMinor(minorFromDecimal(issue.amount, exponent), exponent), currencyCode: issue.currency } };
  let data: { storeCreditAccountCredit: { storeCreditAccountTransaction: { id: string } | null; userErrors: Array<{ field: string[] | null; message: string; code: string | null }> } };
  try {
    data = await api.request(CREDIT_REWARD, { customer, credit });
  } catch (error) {
    throw new StoreCreditRefused(storeCreditHint((error as Error).message));
  }
  const { storeCreditAccountTransaction, userErrors } = data.storeCreditAccountCredit;
  // The customer was deleted since they joined: nothing was credited, and a code reaches them by email.
  if (userErrors.some((error) => error.code === 'OWNER_NOT_FOUND') && !issue.credit_sent_at) return null;
  if (userErrors.length > 0) throw new StoreCreditRefused(userErrors.map((error) => `${(error.field ?? []).join('.') || 'storeCredit'}: ${error.message}`).join('; '));
  if (!storeCreditAccountTransaction) throw new StoreCreditRefused('Shopify made no store credit transaction');
  return { name: 'shopify', id: storeCreditAccountTransaction.id, method: 'store_credit' };
}

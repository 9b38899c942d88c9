import type { Knex } from 'knex';
import { issueRetryAfterSeconds } from '../../core/rewards/record-issue-failed';
import type { Logger } from 'pino';
import { currencyExponent } from '../../core/currency';
import { decimalFromMinor, minorFromDecimal } from '../../core/money';
import { type LeasedDebit, recordCreditDebit } from '../../core/rewards/record-credit-debit';
import type { AdminApi } from './admin-api';
import { advocateCustomer } from './reward-codes';
import { DEBIT_REWARD } from './reward-store-credit-documents';
import { type CreditAccount, StoreCreditRefused, creditAccounts, customerByEmail, sentTransaction, storeCreditHint } from './reward-store-credit';

/**
 * Takes store credit back from a linked shop's customer after a refund (docs/merchants/shopify.md
 * "Store credit"): a debit request (core/rewards/request-credit-debits.ts) is leased, the advocate's
 * account in the currency read, and at most what it holds debited. Shopify documents no idempotency
 * key for storeCreditAccountDebit, so the time and amount are committed before the call and a retry
 * first looks for that debit among the account's latest (reward-store-credit.ts's look-up): a pass
 * that stops between Shopify's answer and the commit leaves one debit, found by the next.
 */

/** A debit request as the worker leases it, with its shop. */
export type DebitRow = LeasedDebit & { shop_domain: string };

/**
 * Leases up to `perShop` due debits of each linked shop, at most `limit` in all, oldest first
 * (SKIP LOCKED: any number of processes may run passes). A lease that outlives a crashed pass expires.
 */
export async function leaseCreditDebits(db: Knex, options: { limit: number; perShop: number; leaseSeconds: number; brandId?: string }): Promise<DebitRow[]> {
  const { rows } = await db.raw(
    `WITH candidates AS (
       SELECT x.brand_id, x.debit_id, x.next_attempt_at FROM reward_credit_debits x
        WHERE x.status IN ('pending', 'failed') AND x.next_attempt_at <= now() AND (x.lease_until IS NULL OR x.lease_until < now())
          AND EXISTS (SELECT 1 FROM shopify_shops s WHERE s.brand_id = x.brand_id AND s.status = 'installed')
          ${options.brandId ? 'AND x.brand_id = ?' : ''}
        ORDER BY x.next_attempt_at LIMIT ? FOR UPDATE OF x SKIP LOCKED),
     ranked AS (SELECT brand_id, debit_id, row_number() OVER (PARTITION BY brand_id ORDER BY next_attempt_at, debit_id) AS n FROM candidates)
     UPDATE reward_credit_debits r SET lease_until = now() + make_interval(secs => ?)
       FROM ranked, shopify_shops s
      WHERE r.brand_id = ranked.brand_id AND r.debit_id = ranked.debit_id AND ranked.n <= ?
        AND s.brand_id = r.brand_id AND s.status = 'installed'
     RETURNING r.brand_id, r.debit_id, r.issue_id, r.advocate_id, r.amount, r.currency, r.attempts, r.sent_at, r.sent_amount, s.shop_domain`,
    [...(options.brandId ? [options.brandId] : []), options.limit, options.leaseSeconds, options.perShop],
  );
  return rows;
}

interface DebitAnswer {
  storeCreditAccountDebit: { storeCreditAccountTransaction: { id: string } | null; userErrors: Array<{ field: string[] | null; message: string; code: string | null }> };
}

/** The debit made (or found made), as Shopify has it: the amount taken and its transaction; 0 and none when the account holds nothing. */
async function debitAccount(db: Knex, api: AdminApi, debit: DebitRow): Promise<{ debited: number; platformId: string | null }> {
  const customer = (await advocateCustomer(db, debit, debit.shop_domain)) ?? (await customerByEmail(db, api, debit));
  // Never settled without knowing: the customer may be deleted, or the app may no longer read customers.
  if (!customer) throw new StoreCreditRefused(storeCreditHint('the customer whose store credit is to be debited is not found (deleted, or the app lacks read_customers)'));
  let accounts: CreditAccount[];
  try {
    accounts = await creditAccounts(api, customer, debit.currency, 'debit');
  } catch (error) {
    throw new StoreCreditRefused(storeCreditHint(`could not read the store credit to debit: ${(error as Error).message}`));
  }
  const exponent = currencyExponent(debit.currency);
  if (debit.sent_at && debit.sent_amount) {
    const sent = minorFromDecimal(debit.sent_amount, exponent);
    const found = await sentTransaction(accounts, { amount: sent, sentAt: new Date(debit.sent_at) }, async (ids) =>
      new Set<string>(await db('reward_credit_debits').where({ brand_id: debit.brand_id }).whereIn('platform_id', ids).pluck('platform_id')),
    );
    if (found) return { debited: sent, platformId: found };
  }
  const [account] = accounts;
  const amount = Math.min(minorFromDecimal(debit.amount, exponent), account?.balance ?? 0);
  // Spent already (or no account in the currency): nothing to take; it stays owed.
  if (!account || amount <= 0) return { debited: 0, platformId: null };
  // Committed before the call: a retry knows a debit of this amount may have been made, and since when.
  await db('reward_credit_debits')
    .where({ brand_id: debit.brand_id, debit_id: debit.debit_id })
    .update({ sent_at: db.raw('coalesce(sent_at, now())'), sent_amount: decimalFromMinor(amount, exponent) });
  let data: DebitAnswer;
  try {
    data = await api.request<DebitAnswer>(DEBIT_REWARD, { account: account.id, debit: { debitAmount: { amount: decimalFromMinor(amount, exponent), currencyCode: debit.currency } } });
  } catch (error) {
    throw new StoreCreditRefused(storeCreditHint((error as Error).message));
  }
  const { storeCreditAccountTransaction, userErrors } = data.storeCreditAccountDebit;
  if (userErrors.length > 0) throw new StoreCreditRefused(userErrors.map((error) => `${(error.field ?? []).join('.') || 'storeCredit'}: ${error.message}`).join('; '));
  if (!storeCreditAccountTransaction) throw new StoreCreditRefused('Shopify made no store credit debit');
  return { debited: amount, platformId: storeCreditAccountTransaction.id };
}

/** One debit made and recorded; a refusal recorded with Shopify's reason (`failed`) and tried again later. Returns whether it was settled. */
export async function debitCredit(db: Knex, apiFor: () => Promise<AdminApi>, debit: DebitRow, logger?: Logger): Promise<boolean> {
  try {
    await recordCreditDebit(db, debit, await debitAccount(db, await apiFor(), debit));
    return true;
  } catch (error) {
    const attempts = debit.attempts + 1;
    logger?.warn({ err: error, brand_id: debit.brand_id, debit_id: debit.debit_id }, 'shopify store credit not debited; tried again later');
    await db('reward_credit_debits')
      .where({ brand_id: debit.brand_id, debit_id: debit.debit_id })
      .whereIn('status', ['pending', 'failed'])
      .update({
        status: 'failed',
        attempts,
        last_error: (error instanceof StoreCreditRefused ? error.message : storeCreditHint(String((error as Error).message))).slice(0, 2000),
        next_attempt_at: db.raw('now() + make_interval(secs => ?)', [issueRetryAfterSeconds(attempts)]),
        lease_until: null,
      });
    return false;
  }
}

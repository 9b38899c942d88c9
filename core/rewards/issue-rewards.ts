import type { Brand } from '../brands/brand';
import type { Executor } from '../db/transaction';
import type { LedgerEntryKind } from '../ledger/entry-kind';

/**
 * Fulfilment by code or store credit (docs/merchants/reward-lifecycle.md "Fulfilment"): where a `coupon` or `store_credit` brand's
 * advocate's spendable money (approved, less what was spent, paid or issued before) reaches the
 * brand's fulfil_min_amount, all of it becomes one reward issue — an outbox row the platform's
 * worker turns into a single-use code or a store credit — and an `issued` ledger entry that moves it
 * out of the balance, both in the caller's transaction (the one that approved the reward). The two
 * are written alike; the issue's `method` is what the brand asks for, and the worker may turn a
 * store credit into a code (an advocate with no customer account).
 */

/** The kinds whose sum is the advocate's spendable approved money (held money is never issued). */
const SPENDABLE_KINDS: readonly LedgerEntryKind[] = ['credit', 'reversal', 'void', 'payout', 'redemption', 'redemption_return', 'issued', 'credit_debit'];

/**
 * The code of an issue: deterministic (the brand, the advocate and the issue id), so a worker that
 * restarts between Shopify's answer and its own commit finds the code it made instead of making another.
 */
const CODE_SQL = `'RWD-' || upper(substr(md5(b.brand_id::text || ':' || s.advocate_id || ':' || n.issue_id), 1, 10))`;

/** What CODE_SQL makes: an order carrying nothing like it is not looked up (core/claims/reward-code-claim.ts). */
export const REWARD_CODE = /^RWD-[0-9A-F]{10}$/i;

const ISSUE_SQL = `
WITH b AS (SELECT brand_id, currency, fulfil_min_amount, reward_fulfilment, reward_code_expiry_days FROM brands WHERE brand_id = ? AND reward_fulfilment IN ('coupon', 'store_credit')),
s AS (
  SELECT l.advocate_id, sum(l.amount) AS amount
    FROM reward_ledger l JOIN b ON b.brand_id = l.brand_id
   WHERE l.advocate_id = ANY(?::bigint[]) AND l.kind = ANY(?::text[])
   GROUP BY l.advocate_id
),
n AS (
  SELECT s.advocate_id, nextval(pg_get_serial_sequence('reward_issues', 'issue_id')) AS issue_id
    FROM s CROSS JOIN b WHERE s.amount > 0 AND s.amount >= b.fulfil_min_amount
),
issue AS (
  INSERT INTO reward_issues (brand_id, issue_id, advocate_id, amount, currency, code, method, expires_at)
  SELECT b.brand_id, n.issue_id, s.advocate_id, s.amount, b.currency, ${CODE_SQL}, CASE b.reward_fulfilment WHEN 'store_credit' THEN 'store_credit' ELSE 'code' END,
         -- A code lasts the brand's reward_code_expiry_days; store credit does not expire here.
         CASE WHEN b.reward_fulfilment = 'coupon' THEN now() + b.reward_code_expiry_days * interval '1 day' END
    FROM n JOIN s USING (advocate_id) CROSS JOIN b
  RETURNING brand_id, issue_id, advocate_id, amount, method
)
INSERT INTO reward_ledger (brand_id, advocate_id, issue_id, kind, amount, actor, reason)
SELECT brand_id, advocate_id, issue_id, 'issued', -amount, 'system', CASE method WHEN 'store_credit' THEN 'issued as store credit' ELSE 'issued as a single-use code' END FROM issue
RETURNING issue_id`;

/** Whether approved money of a brand with this fulfilment is handed out on the store (not paid by hand). */
export function issuesOnStore(fulfilment: Brand['reward_fulfilment']): boolean {
  return fulfilment === 'coupon' || fulfilment === 'store_credit';
}

/**
 * Issues the spendable money of these advocates of the brand that reached the brand's smallest code
 * or credit (a code lasting the brand's reward_code_expiry_days, if any); nothing for a `payout`
 * brand. Returns the new issues' ids.
 */
export async function issueSpendable(trx: Executor, brand: Pick<Brand, 'brand_id' | 'reward_fulfilment'>, advocateIds: number[]): Promise<number[]> {
  const advocates = [...new Set(advocateIds)].sort((a, b) => a - b);
  if (!issuesOnStore(brand.reward_fulfilment) || advocates.length === 0) return [];
  // One issue at a time per advocate: a concurrent approval waits here, then its statement (a new
  // snapshot) sees this one's `issued` entry. In id order, so two batches cannot wait on each other.
  // FOR NO KEY UPDATE, not FOR UPDATE: the same order's reward rows hold KEY SHARE on the advocate
  // (their foreign key), and two orders' transactions each holding that while asking FOR UPDATE deadlocked.
  await trx('advocates').where({ brand_id: brand.brand_id }).whereIn('advocate_id', advocates).orderBy('advocate_id').forNoKeyUpdate().select('advocate_id');
  const { rows } = await trx.raw(ISSUE_SQL, [brand.brand_id, advocates, [...SPENDABLE_KINDS]]);
  return (rows as Array<{ issue_id: string }>).map((row) => Number(row.issue_id));
}

/** Rewards approved in one transaction, of any brands: each brand's advocates issued together. */
export async function issueApproved(trx: Executor, approved: Array<{ brand: Pick<Brand, 'brand_id' | 'reward_fulfilment'>; advocateId: number }>): Promise<void> {
  const byBrand = new Map<string, { brand: Pick<Brand, 'brand_id' | 'reward_fulfilment'>; advocateIds: number[] }>();
  for (const { brand, advocateId } of approved) {
    if (!issuesOnStore(brand.reward_fulfilment)) continue;
    const entry = byBrand.get(brand.brand_id) ?? { brand, advocateIds: [] };
    entry.advocateIds.push(advocateId);
    byBrand.set(brand.brand_id, entry);
  }
  for (const { brand, advocateIds } of byBrand.values()) await issueSpendable(trx, brand, advocateIds);
}

import type { Knex } from 'knex';
import { advocateIsActive } from '../advocates/advocate-status';
import type { ReferralType } from '../conversions/referral-type';
import { lookUpByKeys } from '../db/look-up-by-keys';
import { statementOnce } from '../db/prepared-statement';
import type { Executor } from '../db/transaction';
import type { ClaimStatus } from './claim-status';

/** Reads and status changes of claims shared by conversions, refunds and eligibility. */
export interface ClaimRecord {
  claim_id: number;
  advocate_id: number;
  referral_code: string;
  email_normalized: string;
  order_id: string | null;
  type: ReferralType;
  status: ClaimStatus;
  /** Amounts as PostgreSQL returns numeric(14,2): exact decimal strings. */
  raw_value: string;
  claim_value: string;
  discount_applied: string;
  refunded_total: string;
  created_at: Date;
}

/** A claims row as the driver returns CLAIM_COLUMNS (bigint ids as strings). */
export interface ClaimRow extends Omit<ClaimRecord, 'claim_id' | 'advocate_id'> {
  claim_id: string;
  advocate_id: string;
}

export const CLAIM_COLUMNS = [
  'claim_id', 'advocate_id', 'referral_code', 'email_normalized', 'order_id', 'type', 'status',
  'raw_value', 'claim_value', 'discount_applied', 'refunded_total', 'created_at',
];

export function toClaim(row: ClaimRow): ClaimRecord;
export function toClaim(row: ClaimRow | undefined): ClaimRecord | null;
export function toClaim(row: ClaimRow | undefined): ClaimRecord | null {
  if (!row) return null;
  return { ...row, claim_id: Number(row.claim_id), advocate_id: Number(row.advocate_id) };
}

export async function findClaim(db: Executor, brandId: string, claimId: number, forUpdate = false): Promise<ClaimRecord | null> {
  const query = db('claims').select(CLAIM_COLUMNS).where({ brand_id: brandId, claim_id: claimId });
  return toClaim(await (forUpdate ? query.forUpdate() : query).first());
}

/** The advocate claim an order that spent a reward code was recorded as (reward-code-claim.ts), locked; null when none. */
export async function findAdvocateClaimOfOrder(db: Executor, brandId: string, orderId: string): Promise<ClaimRecord | null> {
  return toClaim(await db('claims').select(CLAIM_COLUMNS).where({ brand_id: brandId, order_id: orderId, type: 'advocate' }).orderBy('claim_id').forUpdate().first());
}

/** What a batch of orders asks of claims: the ones they name by id, and their customers' pending ones. */
export interface ClaimsWanted {
  named: Array<{ brandId: string; claimId: number }>;
  /** A customer's pending claims inside the brand's attribution window. */
  customers: Array<{ brandId: string; emailNormalized: string; windowDays: number }>;
}

export interface ClaimsOfOrders {
  /** By `${brand_id}:${claim_id}`. */
  named: Map<string, ClaimRecord>;
  /** By `${brand_id}:${email_normalized}`, newest first (ties: the higher claim_id). */
  pending: Map<string, ClaimRecord[]>;
}

// The claims named by id, then every pending claim of the customers (OFFSET 0: knex leaves an offset of 0 out of a builder);
// a deactivated advocate's claims are not found, so they attribute no new order (docs/development/decisions.md, *Deactivated advocates*).
const claimsOfOrders = statementOnce(2, (db, [named, customers]) =>
  db.raw('? UNION ALL ?', [
    lookUpByKeys(
      db,
      'brand_id uuid, claim_id bigint',
      named!,
      db('claims').select(db.raw(`'named' AS wanted_as`), ...CLAIM_COLUMNS, 'brand_id').whereRaw(`claims.brand_id = k.brand_id AND claims.claim_id = k.claim_id AND ${advocateIsActive('claims.brand_id', 'claims.advocate_id')}`).limit(1),
    ),
    lookUpByKeys(
      db,
      'brand_id uuid, email_normalized text, window_days integer',
      customers!,
      db.raw(
        `SELECT 'pending' AS wanted_as, ${CLAIM_COLUMNS.join(', ')}, brand_id FROM claims
         WHERE claims.brand_id = k.brand_id AND claims.email_normalized = k.email_normalized AND claims.status = 'pending'
           AND claims.created_at >= now() - make_interval(days => k.window_days)
           AND ${advocateIsActive('claims.brand_id', 'claims.advocate_id')}
         OFFSET 0`,
      ),
    ),
  ]),
);

/** The claims a batch of orders names and its customers' pending claims, in one query. */
export async function findClaimsOfOrders(db: Executor, wanted: ClaimsWanted): Promise<ClaimsOfOrders> {
  const found: ClaimsOfOrders = { named: new Map(), pending: new Map() };
  const customers = [...new Map(wanted.customers.map((customer) => [`${customer.brandId}:${customer.emailNormalized}`, customer])).values()];
  if (wanted.named.length === 0 && customers.length === 0) return found;
  const { rows } = await claimsOfOrders(db, [
    JSON.stringify(wanted.named.map((claim) => ({ brand_id: claim.brandId, claim_id: claim.claimId }))),
    JSON.stringify(customers.map((c) => ({ brand_id: c.brandId, email_normalized: c.emailNormalized, window_days: c.windowDays }))),
  ]);
  for (const { wanted_as, brand_id, ...row } of rows as Array<ClaimRow & { wanted_as: 'named' | 'pending'; brand_id: string }>) {
    const claim = toClaim(row);
    if (wanted_as === 'named') found.named.set(`${brand_id}:${claim.claim_id}`, claim);
    else {
      const key = `${brand_id}:${claim.email_normalized}`;
      found.pending.set(key, [...(found.pending.get(key) ?? []), claim]);
    }
  }
  for (const claims of found.pending.values()) claims.sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || b.claim_id - a.claim_id);
  return found;
}

/**
 * Linking a conversion sets its claim `converted` (a refunded one keeps its status) and gives it
 * the order id: the body of a CTE over CTE `source` (brand_id, claim_id, order_id, item), so the
 * conversions, their credits and their claims are written in one statement. Two orders of one
 * statement naming the same claim: the first (lowest `item`) gives it its order id, as one after
 * the other would.
 */
export function markClaimsConvertedBy(db: Executor, source: string): Knex.Raw {
  return db.raw(
    `UPDATE claims SET status = CASE WHEN claims.status = 'pending' THEN 'converted' ELSE claims.status END,
       order_id = coalesce(claims.order_id, linked.order_id), updated_at = now()
     FROM (SELECT DISTINCT ON (brand_id, claim_id) brand_id, claim_id, order_id FROM ?? WHERE claim_id IS NOT NULL ORDER BY brand_id, claim_id, item) AS linked
     WHERE claims.brand_id = linked.brand_id AND claims.claim_id = linked.claim_id`,
    [source],
  );
}

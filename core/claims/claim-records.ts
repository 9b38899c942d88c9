import type { Knex } from 'knex';
import type { ReferralType } from '../conversions/referral-type';
import { prepared } from '../db/prepared-statement';
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

const columnsOf = (table: string) => CLAIM_COLUMNS.map((column) => `${table}.${column}`).join(', ');

// Constant text whatever the batch's size, prepared once per connection (JSON recordsets: see core/fraud/fraud-signals.ts).
const CLAIMS_OF_ORDERS_SQL = `
SELECT 'named' AS wanted_as, ${columnsOf('n')}, n.brand_id FROM claims n
WHERE (n.brand_id, n.claim_id) IN (SELECT * FROM jsonb_to_recordset(?::jsonb) AS k(brand_id uuid, claim_id bigint))
UNION ALL
SELECT 'pending', ${columnsOf('p')}, p.brand_id FROM claims p
JOIN jsonb_to_recordset(?::jsonb) AS w(brand_id uuid, email_normalized text, window_days integer)
  ON p.brand_id = w.brand_id AND p.email_normalized = w.email_normalized
WHERE p.status = 'pending' AND p.created_at >= now() - make_interval(days => w.window_days)`;

/** The claims a batch of orders names and its customers' pending claims, in one query. */
export async function findClaimsOfOrders(db: Executor, wanted: ClaimsWanted): Promise<ClaimsOfOrders> {
  const found: ClaimsOfOrders = { named: new Map(), pending: new Map() };
  const customers = [...new Map(wanted.customers.map((customer) => [`${customer.brandId}:${customer.emailNormalized}`, customer])).values()];
  if (wanted.named.length === 0 && customers.length === 0) return found;
  const { rows } = await prepared(db, db.raw(CLAIMS_OF_ORDERS_SQL, [
    JSON.stringify(wanted.named.map((claim) => ({ brand_id: claim.brandId, claim_id: claim.claimId }))),
    JSON.stringify(customers.map((customer) => ({ brand_id: customer.brandId, email_normalized: customer.emailNormalized, window_days: customer.windowDays }))),
  ]));
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
 * the order id: the body of a CTE over CTE `source` (claim_id, order_id), so the conversion, its
 * credit and its claim are written in one statement.
 */
export function markClaimsConvertedBy(db: Executor, brandId: string, source: string): Knex.Raw {
  return db.raw(
    `UPDATE claims SET status = CASE WHEN claims.status = 'pending' THEN 'converted' ELSE claims.status END,
       order_id = coalesce(claims.order_id, ??.order_id), updated_at = now()
     FROM ?? WHERE claims.brand_id = ? AND claims.claim_id = ??.claim_id`,
    [source, source, brandId, source],
  );
}

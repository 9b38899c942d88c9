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

/** The newest claim still waiting for its order, for this customer, inside the attribution window. */
export async function newestPendingClaim(
  db: Executor,
  brandId: string,
  emailNormalized: string,
  windowDays: number,
  advocateId?: number,
): Promise<ClaimRecord | null> {
  const query = db('claims')
    .select(CLAIM_COLUMNS)
    .where({ brand_id: brandId, email_normalized: emailNormalized, status: 'pending' satisfies ClaimStatus })
    .andWhere('created_at', '>=', db.raw(`now() - make_interval(days => ?)`, [windowDays]))
    .orderBy('created_at', 'desc')
    .first();
  if (advocateId !== undefined) query.andWhere({ advocate_id: advocateId });
  // Prepared: on the conversion hot path, planning this look-up costs more than running it.
  return toClaim(await prepared(db, query));
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

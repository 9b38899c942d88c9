import type { Executor } from '../db/transaction';

/** Reads and status changes of claims shared by conversions, refunds and eligibility. */
export interface ClaimRecord {
  claim_id: number;
  advocate_id: number;
  referral_code: string;
  email_normalized: string;
  order_id: string | null;
  type: 'referral' | 'advocate';
  status: string;
  raw_value: string;
  claim_value: string;
  discount_applied: string;
  refunded_total: string;
  created_at: Date;
}

const CLAIM_COLUMNS = [
  'claim_id', 'advocate_id', 'referral_code', 'email_normalized', 'order_id', 'type', 'status',
  'raw_value', 'claim_value', 'discount_applied', 'refunded_total', 'created_at',
];

function toClaim(row: Record<string, unknown> | undefined): ClaimRecord | null {
  if (!row) return null;
  return { ...(row as unknown as ClaimRecord), claim_id: Number(row.claim_id), advocate_id: Number(row.advocate_id) };
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
    .where({ brand_id: brandId, email_normalized: emailNormalized, status: 'pending' })
    .andWhere('created_at', '>=', db.raw(`now() - make_interval(days => ?)`, [windowDays]))
    .orderBy('created_at', 'desc')
    .first();
  if (advocateId !== undefined) query.andWhere({ advocate_id: advocateId });
  return toClaim(await query);
}

export async function markClaimConverted(db: Executor, brandId: string, claimId: number, orderId: string | null): Promise<void> {
  await db('claims')
    .where({ brand_id: brandId, claim_id: claimId })
    .update({
      status: db.raw(`CASE WHEN status = 'pending' THEN 'converted' ELSE status END`),
      order_id: db.raw('coalesce(order_id, ?)', [orderId]),
      updated_at: db.fn.now(),
    });
}

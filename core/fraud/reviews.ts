import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit-log';
import type { Brand } from '../brands/brand';
import type { Executor } from '../db/transaction';
import { Conflict, NotFound } from '../errors';
import { currencyExponent } from '../currency';
import { amountFromDecimal, amountFromMinor } from '../money';
import type { FraudReason } from './fraud-rules';
import { rejectHeldReward, releaseHeldReward } from './review-hold';

/** The review queue of conversions the fraud rules held (docs/merchants/fraud-review.md). */
export const REVIEW_STATUSES = ['open', 'approved', 'rejected'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** What a conversion's answer says about its review. */
export interface ReviewSummary {
  review_id: number;
  status: ReviewStatus;
  reasons: FraudReason[];
}

export interface ReviewView extends ReviewSummary {
  conversion_id: number;
  advocate_id: number;
  decided_by: string | null;
  decided_at: string | null;
  note: string | null;
  created_at: string;
  /** The held conversion, as a reviewer needs it. */
  conversion: {
    order_id: string | null;
    status: string;
    email: string | null;
    customer_id: string | null;
    visitor_id: string | null;
    ip_address: string | null;
    order_value: number;
    /** The order's currency (order_value and refunded_total are in it). */
    currency: string;
    refunded_total: number;
    referrer_reward_paid: number;
    referral_code: string | null;
    source: string | null;
    created_at: string;
  };
  advocate: { email: string; first_name: string };
}

interface ReviewRow {
  review_id: string;
  conversion_id: string;
  advocate_id: string;
  reasons: FraudReason[];
  status: ReviewStatus;
  decided_by: string | null;
  decided_at: Date | null;
  note: string | null;
  created_at: Date;
  order_id: string | null;
  conversion_status: string;
  email: string | null;
  customer_id: string | null;
  visitor_id: string | null;
  customer_ip: string | null;
  order_value: string;
  currency: string;
  refunded_total: string;
  referrer_reward_paid: string;
  referral_code: string | null;
  source: string | null;
  conversion_created_at: Date;
  advocate_email: string;
  advocate_first_name: string;
}

const iso = (date: Date | null) => (date === null ? null : new Date(date).toISOString());

function toReviewView(row: ReviewRow): ReviewView {
  return {
    review_id: Number(row.review_id),
    status: row.status,
    reasons: row.reasons,
    conversion_id: Number(row.conversion_id),
    advocate_id: Number(row.advocate_id),
    decided_by: row.decided_by,
    decided_at: iso(row.decided_at),
    note: row.note,
    created_at: iso(row.created_at)!,
    conversion: {
      order_id: row.order_id,
      status: row.conversion_status,
      email: row.email,
      customer_id: row.customer_id,
      visitor_id: row.visitor_id,
      ip_address: row.customer_ip,
      order_value: amountFromDecimal(row.order_value),
      currency: row.currency,
      refunded_total: amountFromDecimal(row.refunded_total),
      referrer_reward_paid: amountFromDecimal(row.referrer_reward_paid),
      referral_code: row.referral_code,
      source: row.source,
      created_at: iso(row.conversion_created_at)!,
    },
    advocate: { email: row.advocate_email, first_name: row.advocate_first_name },
  };
}

/** Reviews with their conversion and advocate. */
function reviewRows(db: Executor, brandId: string): Knex.QueryBuilder {
  return db('referral_reviews as r')
    .join('conversions as c', (on) => on.on('c.brand_id', 'r.brand_id').andOn('c.conversion_id', 'r.conversion_id'))
    .join('advocates as a', (on) => on.on('a.brand_id', 'r.brand_id').andOn('a.advocate_id', 'r.advocate_id'))
    .where('r.brand_id', brandId)
    .select(
      'r.review_id', 'r.conversion_id', 'r.advocate_id', 'r.reasons', 'r.status', 'r.decided_by', 'r.decided_at', 'r.note', 'r.created_at',
      'c.order_id', 'c.status as conversion_status', 'c.email', 'c.customer_id', 'c.visitor_id', db.raw('host(c.customer_ip) AS customer_ip'),
      'c.order_value', 'c.currency', 'c.refunded_total', 'c.referrer_reward_paid', 'c.referral_code', 'c.source', 'c.created_at as conversion_created_at',
      'a.email as advocate_email', 'a.first_name as advocate_first_name',
    );
}

/**
 * A select column of a `conversions` query: the conversion's review as a ReviewSummary, or null,
 * so a repeated order reads its review in the same statement.
 */
export function reviewColumn(db: Executor): Knex.Raw {
  return db.raw(
    `(SELECT jsonb_build_object('review_id', r.review_id, 'status', r.status, 'reasons', r.reasons) FROM referral_reviews r
      WHERE r.brand_id = conversions.brand_id AND r.conversion_id = conversions.conversion_id) AS review`,
  );
}

export interface ReviewListQuery {
  status?: ReviewStatus;
  /** Oldest first; `after` is the last review_id of the previous page. */
  after?: number;
  limit: number;
  /** Open reviews before decided ones (the dashboard's queue); otherwise by review_id alone. */
  openFirst?: boolean;
  /** Rows to skip (the dashboard's numbered pages); `after` is the API's cursor. */
  offset?: number;
}

export interface ReviewPage {
  reviews: ReviewView[];
  /** Pass as `after` for the next page; null on the last one. */
  next_after: number | null;
}

export async function listReviews(db: Executor, brand: Brand, query: ReviewListQuery): Promise<ReviewPage> {
  const builder = reviewRows(db, brand.brand_id).limit(query.limit + 1).offset(query.offset ?? 0);
  if (query.openFirst) builder.orderByRaw("(r.status = 'open') DESC");
  builder.orderBy('r.review_id');
  if (query.status) builder.andWhere('r.status', query.status);
  if (query.after !== undefined) builder.andWhere('r.review_id', '>', query.after);
  const rows: ReviewRow[] = await builder;
  const page = rows.slice(0, query.limit).map(toReviewView);
  return { reviews: page, next_after: rows.length > query.limit ? page[page.length - 1]!.review_id : null };
}

export interface ReviewDecision {
  decision: 'approved' | 'rejected';
  decided_by: string;
  note: string | null;
}

export interface DecidedReview {
  review: ReviewView;
  /** What the approval made spendable at once (0 on a rejection, or while the brand's hold runs: the reward is then pending). */
  reward_credited: number;
}

/**
 * Approves (the reward leaves review: pending until the brand's hold ends, or approved) or rejects
 * (the reward is voided) an open review, once: a
 * review already decided → Conflict; another brand's or an unknown one → NotFound. The audit log
 * records the decision (its reward's move with it) as `actor`'s; `decided_by` is the review's own record.
 */
export async function decideReview(trx: Knex.Transaction, brand: Brand, reviewId: number, decision: ReviewDecision, actor: string): Promise<DecidedReview> {
  const [decided]: Array<{ conversion_id: string }> = await trx('referral_reviews')
    .where({ brand_id: brand.brand_id, review_id: reviewId, status: 'open' })
    .update({ status: decision.decision, decided_by: decision.decided_by, decided_at: trx.fn.now(), note: decision.note })
    .returning('conversion_id');
  if (!decided) {
    const existing = await trx('referral_reviews').select('status').where({ brand_id: brand.brand_id, review_id: reviewId }).first();
    if (!existing) throw new NotFound(`review ${reviewId} not found`);
    throw new Conflict(`review ${reviewId} was already ${existing.status}`, { review_status: existing.status });
  }
  const conversionId = Number(decided.conversion_id);
  let credited = 0;
  if (decision.decision === 'approved') credited = await releaseHeldReward(trx, brand, conversionId, decision.decided_by, decision.note);
  else await rejectHeldReward(trx, brand, conversionId, decision.decided_by, decision.note ?? 'rejected');
  const row: ReviewRow = await reviewRows(trx, brand.brand_id).andWhere('r.review_id', reviewId).first();
  await recordAudit(trx, {
    brandId: brand.brand_id,
    actor,
    action: decision.decision === 'approved' ? 'review.approve' : 'review.reject',
    subject: `review:${reviewId}`,
    before: { status: 'open' },
    after: { status: decision.decision, decided_by: decision.decided_by, note: decision.note },
  });
  return { review: toReviewView(row), reward_credited: amountFromMinor(credited, currencyExponent(brand.currency)) };
}

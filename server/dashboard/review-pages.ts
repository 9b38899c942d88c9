import { currencyExponent } from '../../core/currency';
import { inTransaction } from '../../core/db/transaction';
import { type ReviewDecision, decideReview, listReviews } from '../../core/fraud/reviews';
import type { Ctx } from '../app-context';
import { reviewApproveSchema, reviewPathSchema, reviewRejectSchema } from '../schemas/review-request';
import { csvMoney, sendCsv } from './csv-export';
import { CSV_MAX_ROWS, PER_PAGE, reviewsQuerySchema } from './dashboard-query';
import { runForm, seeOther } from './form-actions';
import { renderPage } from './render-page';

/** An amount in its currency, with that currency's decimals (JPY 0, USD 2, KWD 3). */
function amountIn(value: number, currency: string): string {
  const digits = currencyExponent(currency);
  return `${new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value)} ${currency}`;
}

const reasonsText = (reasons: Array<{ code: string; detail: string }>) => reasons.map((r) => `${r.code}: ${r.detail}`).join('; ');

/**
 * GET /dashboard/reviews: the fraud review queue, open reviews first (the default filter), 25 a
 * page; ?format=csv exports every review the filter matches. `refusal` is a decision core refused.
 */
export async function reviewsPage(ctx: Ctx, refusal?: { status: number; message: string }): Promise<void> {
  const query = reviewsQuerySchema.parse(ctx.query);
  const { brand } = ctx.state.viewer!;
  const csv = query.format === 'csv';
  const page = csv ? 1 : query.page;
  const limit = csv ? CSV_MAX_ROWS : PER_PAGE;
  const listed = await listReviews(ctx.app.context.deps.db, brand, {
    status: query.status === 'all' ? undefined : query.status,
    openFirst: true,
    limit,
    offset: (page - 1) * limit,
  });
  if (csv) {
    return sendCsv(ctx, `reviews-${query.status}`, [
      ['review_id', (r) => r.review_id],
      ['status', (r) => r.status],
      ['created_at', (r) => r.created_at],
      ['order_id', (r) => r.conversion.order_id],
      ['email', (r) => r.conversion.email],
      ['order_value', (r) => csvMoney(r.conversion.order_value, r.conversion.currency)],
      ['currency', (r) => r.conversion.currency],
      ['referral_code', (r) => r.conversion.referral_code],
      ['advocate_email', (r) => r.advocate.email],
      ['reasons', (r) => reasonsText(r.reasons)],
      ['decided_by', (r) => r.decided_by],
      ['decided_at', (r) => r.decided_at],
      ['note', (r) => r.note],
    ], listed.reviews);
  }
  const rows = listed.reviews.map((review) => ({ ...review, amount: amountIn(review.conversion.order_value, review.conversion.currency) }));
  renderPage(
    ctx,
    'reviews',
    {
      title: 'Reviews',
      section: '/dashboard/reviews',
      rows,
      status: query.status,
      page: { page, has_more: listed.next_after !== null },
      params: { status: query.status },
      notice: query.done && query.review ? `Review ${query.review} ${query.done}.` : null,
      refusal: refusal?.message ?? null,
    },
    refusal?.status,
  );
}

/** POST /dashboard/reviews/:id/approve|reject: decided through core (as the API and CLI do), then back to the queue. */
export async function decideReviewForm(ctx: Ctx, id: string, decision: ReviewDecision['decision'], form: URLSearchParams): Promise<void> {
  // The filter the form was posted from: the queue comes back on it.
  const back: Record<string, string> = form.get('back_status') ? { status: form.get('back_status')! } : {};
  await runForm(
    ctx,
    form,
    async () => {
      const reviewId = reviewPathSchema.parse({ id }).id;
      const note =
        decision === 'approved'
          ? (reviewApproveSchema.pick({ note: true }).parse({ note: form.get('note') || undefined }).note ?? null)
          : reviewRejectSchema.pick({ reason: true }).parse({ reason: form.get('reason') ?? '' }).reason;
      const { brand } = ctx.state.viewer!;
      await inTransaction(ctx.app.context.deps.db, (trx) => decideReview(trx, brand, reviewId, { decision, decided_by: ctx.state.viewer!.actor, note }, ctx.state.viewer!.actor));
      seeOther(ctx, '/dashboard/reviews', { ...back, done: decision, review: reviewId });
    },
    (status, message) => {
      ctx.query = back;
      return reviewsPage(ctx, { status, message });
    },
  );
}

import { inTransaction } from '../../core/db/transaction';
import { decideReview, listReviews } from '../../core/fraud/reviews';
import type { Ctx } from '../app-context';
import { actorOf } from './api-actor';
import { parseJsonObject } from '../middleware/json-body';
import { reviewApproveSchema, reviewPathSchema, reviewListQuerySchema, reviewRejectSchema } from '../schemas/review-request';

/** A route's context with its path parameters (the router sets them). */
type RouteCtx = Ctx & { params: Record<string, string | undefined> };

/** GET /api/v1/reviews: the brand's fraud reviews, oldest first, `status` filtered, `after`/`limit` paged. */
export async function listReviewsRoute(ctx: Ctx): Promise<void> {
  const query = reviewListQuerySchema.parse(ctx.query);
  const page = await listReviews(ctx.app.context.deps.db, ctx.state.brand!, query);
  ctx.status = 200;
  ctx.body = { success: true, data: page };
}

/** POST /api/v1/reviews/{id}/approve: the held reward is credited; 409 when already decided. */
export async function approveReviewRoute(ctx: RouteCtx): Promise<void> {
  const reviewId = reviewPathSchema.parse(ctx.params).id;
  const raw = ctx.state.rawBody;
  const body = reviewApproveSchema.parse(raw && raw.length > 0 ? parseJsonObject(raw) : {});
  const decision = { decision: 'approved' as const, decided_by: body.decided_by ?? 'api', note: body.note ?? null };
  await answerDecision(ctx, reviewId, decision);
}

/** POST /api/v1/reviews/{id}/reject: the reward is never credited; 409 when already decided. */
export async function rejectReviewRoute(ctx: RouteCtx): Promise<void> {
  const reviewId = reviewPathSchema.parse(ctx.params).id;
  const body = reviewRejectSchema.parse(parseJsonObject(ctx.state.rawBody));
  await answerDecision(ctx, reviewId, { decision: 'rejected', decided_by: body.decided_by ?? 'api', note: body.reason });
}

async function answerDecision(ctx: Ctx, reviewId: number, decision: Parameters<typeof decideReview>[3]): Promise<void> {
  const brand = ctx.state.brand!;
  const decided = await inTransaction(ctx.app.context.deps.db, (trx) => decideReview(trx, brand, reviewId, decision, actorOf(ctx)));
  ctx.status = 200;
  ctx.body = { success: true, data: decided };
}

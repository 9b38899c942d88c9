import { z } from 'zod';
import { REVIEW_STATUSES } from '../../core/fraud/reviews';
import { requiredText, text } from './fields';

/** GET /api/v1/reviews?status=open&after=ID&limit=N: query parameters are strings. */
export const reviewListQuerySchema = z.object({
  status: z.enum(REVIEW_STATUSES).optional(),
  after: z.coerce.number({ error: 'must be a review id' }).int({ error: 'must be a review id' }).positive({ error: 'must be a review id' }).optional(),
  limit: z.coerce.number({ error: 'must be an integer from 1 to 200' }).int({ error: 'must be an integer from 1 to 200' }).min(1, { error: 'must be an integer from 1 to 200' }).max(200, { error: 'must be an integer from 1 to 200' }).default(50),
});

/** The path parameters of /api/v1/reviews/{id}/approve|reject. */
const reviewId = 'must be a positive integer review id';
export const reviewPathSchema = z.object({
  id: z.coerce.number({ error: reviewId }).int({ error: reviewId }).positive({ error: reviewId }),
});

/** POST /api/v1/reviews/{id}/approve: the body is optional. */
export const reviewApproveSchema = z.object({
  note: text().optional(),
  /** Who decided (a name or email for the audit trail); default `api`. */
  decided_by: requiredText().optional(),
});

/** POST /api/v1/reviews/{id}/reject: why, in a sentence. */
export const reviewRejectSchema = z.object({
  reason: requiredText(),
  decided_by: requiredText().optional(),
});

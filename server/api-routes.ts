import Router from '@koa/router';
import { isPublishableKey } from '../core/brands/api-keys';
import { FEATURE_PLANS } from '../core/brands/plan-features';
import type { AppContext, AppState } from './app-context';
import { authenticateApiKey } from './middleware/authenticate-api-key';
import { readRawBody } from './middleware/json-body';
import { rateLimit } from './middleware/rate-limit';
import { requirePlan } from './middleware/require-plan';
import { verifyAlSignature } from './middleware/verify-al-signature';
import { advocateRoutes, joinRoute } from './routes/advocates';
import { acceptPublishableKey } from './middleware/storefront-cors';
import { checkEligibilityRoute } from './routes/check-eligibility';
import { convert } from './routes/convert';
import { emailRoutes } from './routes/emails';
import { programSettingsRoutes } from './routes/program-settings';
import { advocateBalanceRoute, approveRewardRoute, getRewardRoute, listRewardsRoute, voidRewardRoute } from './routes/rewards';
import { approveReviewRoute, listReviewsRoute, rejectReviewRoute } from './routes/reviews';
import { trackClaim } from './routes/track-claim';
import { trackConversion } from './routes/track-conversion';
import { trackRefund } from './routes/track-refund';
import { trackVisit } from './routes/track-visit';
import { webhookEndpointRoutes } from './routes/webhook-endpoints';

export const API_PREFIX = '/api/v1';

/** /api/v1: every route is rate-limited per IP, then reads its raw body, authenticates, gates by plan. */
export function apiRoutes(): Router<AppState, AppContext> {
  const router = new Router<AppState, AppContext>({ prefix: API_PREFIX });
  const allPlans = requirePlan(...FEATURE_PLANS.tracking);
  router.post('/track/conversion', rateLimit('conversion'), readRawBody, authenticateApiKey, allPlans, trackConversion);
  router.post('/track/refund', rateLimit('refund'), readRawBody, authenticateApiKey, allPlans, trackRefund);
  // The storefront's two routes: a page may call them with the brand's publishable key (docs/merchants/storefront.md).
  router.options('/track/visit', acceptPublishableKey);
  router.post('/track/visit', acceptPublishableKey, rateLimit('visit'), readRawBody, authenticateApiKey, requirePlan(...FEATURE_PLANS.visits), trackVisit);
  router.options('/advocates/join', acceptPublishableKey);
  // Per-IP limit for pages (the publishable key); a store's backend joining its customers with the secret key all comes from one address.
  const joinsFromPages = rateLimit('join');
  router.post('/advocates/join', acceptPublishableKey, (ctx, next) => (isPublishableKey(ctx.get('x-api-key')) ? joinsFromPages(ctx, next) : next()), readRawBody, authenticateApiKey, allPlans, joinRoute);
  router.post('/track/claim', rateLimit('claim'), readRawBody, authenticateApiKey, requirePlan(...FEATURE_PLANS.claims), trackClaim);
  router.post('/track/check-eligibility', rateLimit('eligibility'), readRawBody, authenticateApiKey, allPlans, checkEligibilityRoute);
  router.post('/convert', rateLimit('convert'), readRawBody, verifyAlSignature, convert);
  const rewards = requirePlan(...FEATURE_PLANS.rewards);
  router.get('/rewards', rateLimit('rewards'), authenticateApiKey, rewards, listRewardsRoute);
  router.get('/rewards/:id', rateLimit('rewards'), authenticateApiKey, rewards, getRewardRoute);
  router.post('/rewards/:id/approve', rateLimit('rewards'), readRawBody, authenticateApiKey, rewards, approveRewardRoute);
  router.post('/rewards/:id/void', rateLimit('rewards'), readRawBody, authenticateApiKey, rewards, voidRewardRoute);
  router.get('/advocates/:id/balance', rateLimit('rewards'), authenticateApiKey, rewards, advocateBalanceRoute);
  // The fraud review queue (docs/merchants/fraud-review.md): every plan has fraud rules, so every plan reviews.
  router.get('/reviews', rateLimit('review'), authenticateApiKey, allPlans, listReviewsRoute);
  router.post('/reviews/:id/approve', rateLimit('review'), readRawBody, authenticateApiKey, allPlans, approveReviewRoute);
  router.post('/reviews/:id/reject', rateLimit('review'), readRawBody, authenticateApiKey, allPlans, rejectReviewRoute);
  webhookEndpointRoutes(router, readRawBody, authenticateApiKey, allPlans);
  emailRoutes(router, readRawBody, authenticateApiKey, allPlans);
  advocateRoutes(router, readRawBody, authenticateApiKey, allPlans);
  programSettingsRoutes(router, readRawBody, authenticateApiKey, allPlans);
  return router;
}

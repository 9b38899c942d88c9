import Router from '@koa/router';
import type { AppContext, AppState } from './app-context';
import { authenticateApiKey } from './middleware/authenticate-api-key';
import { readRawBody } from './middleware/json-body';
import { requirePlan } from './middleware/require-plan';
import { trackConversion } from './routes/track-conversion';
import { trackRefund } from './routes/track-refund';

/** /api/v1: every route reads its raw body, then authenticates, then gates by plan. */
export function apiRoutes(): Router<AppState, AppContext> {
  const router = new Router<AppState, AppContext>({ prefix: '/api/v1' });
  const allPlans = requirePlan('starter', 'growth', 'premier');
  router.post('/track/conversion', readRawBody, authenticateApiKey, allPlans, trackConversion);
  router.post('/track/refund', readRawBody, authenticateApiKey, allPlans, trackRefund);
  return router;
}

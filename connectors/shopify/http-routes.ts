import Router from '@koa/router';
import type { AppContext, AppState } from '../../server/app-context';
import { readRawBody } from '../../server/middleware/json-body';
import { beginInstall, completeInstall } from './oauth-routes';
import { receiveShopifyWebhook } from './receive-webhook';
import { AUTH_CALLBACK_PATH, AUTH_PATH, WEBHOOK_PATH } from './shopify-config';

/**
 * The Shopify app's HTTP surface: install (OAuth) and webhooks. Not rate limited per IP (all of
 * Shopify's traffic comes from few addresses); webhooks read their own raw body for the HMAC.
 */
export function shopifyRoutes(): Router<AppState, AppContext> {
  const router = new Router<AppState, AppContext>();
  router.get(AUTH_PATH, beginInstall);
  router.get(AUTH_CALLBACK_PATH, completeInstall);
  router.post(WEBHOOK_PATH, readRawBody, receiveShopifyWebhook);
  return router;
}

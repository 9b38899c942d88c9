import Router from '@koa/router';
import { type AppContext, type AppState, readRawBody } from '../../server/http';
import { PROXY_JOIN_PATH, PROXY_PATH, joinFromProxy, showProxyPage } from './app-proxy';
import type { InboxBell } from './inbox-worker';
import { beginInstall, completeInstall } from './oauth-routes';
import { receiveShopifyWebhook } from './receive-webhook';
import { AUTH_CALLBACK_PATH, AUTH_PATH, type ShopifyAppConfig, WEBHOOK_PATH } from './shopify-config';

/**
 * The Shopify app's HTTP surface: install (OAuth), webhooks and the app proxy's page (the store's
 * /apps/referrals). Not rate limited per IP (all of Shopify's traffic comes from few addresses);
 * webhooks read their own raw body for the HMAC; proxy requests are signed in their query.
 */
export function shopifyRoutes(app: ShopifyAppConfig | null, bell: InboxBell): Router<AppState, AppContext> {
  const router = new Router<AppState, AppContext>();
  router.get(AUTH_PATH, (ctx) => beginInstall(ctx, app));
  router.get(AUTH_CALLBACK_PATH, (ctx) => completeInstall(ctx, app));
  router.post(WEBHOOK_PATH, readRawBody, (ctx) => receiveShopifyWebhook(ctx, app, bell));
  router.get(PROXY_PATH, (ctx) => showProxyPage(ctx, app));
  router.post(PROXY_JOIN_PATH, readRawBody, (ctx) => joinFromProxy(ctx, app));
  return router;
}

import Router from '@koa/router';
import Koa from 'koa';
import { API_PREFIX, apiRoutes } from './api-routes';
import type { AppContext, AppDeps, AppState } from './app-context';
import { configureConnectors } from './connectors';
import { dashboardRoutes } from './dashboard/dashboard-routes';
import { unsubscribeRoutes } from './mail/unsubscribe-routes';
import { errorEnvelope } from './middleware/error-envelope';
import { requestLog } from './middleware/request-log';
import { requireHttps } from './middleware/require-https';
import { openApiDocument } from './openapi';
import { healthz, readyz } from './routes/health';
import { createIngestBatchers, writeBatchSettings } from './write-batch-settings';

export type App = Koa<AppState, AppContext>;

/** Builds the Koa app without listening: tests hand `app.callback()` to supertest. */
export function createApp(deps: AppDeps): App {
  const connectors = deps.connectors ?? configureConnectors();
  // maxIpsCount 1: the client is the address our proxy appended to X-Forwarded-For, never an entry the client sent.
  const app = new Koa<AppState, AppContext>({ proxy: deps.config.trustProxy, maxIpsCount: 1 });
  app.context.deps = { ...deps, connectors };
  app.context.batchers = createIngestBatchers(deps.db, { ...writeBatchSettings, ...deps.config.writeBatch });
  app.silent = true; // errors are logged by errorEnvelope, once

  const probes = new Router<AppState, AppContext>();
  probes.get('/healthz', healthz);
  probes.get('/readyz', readyz);
  probes.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = openApiDocument();
  });

  app.use(requestLog);
  app.use(errorEnvelope);
  app.use(probes.routes());
  app.use(requireHttps);
  // The API first and only for its own paths: an ingest request is matched against the API's
  // routes alone, not every page's and connector's before them (a router tests each of its routes).
  const api = apiRoutes();
  app.use(under(API_PREFIX, api.routes()));
  app.use(under(API_PREFIX, api.allowedMethods()));
  for (const connector of connectors) {
    if (connector.routes) app.use(connector.routes().routes());
  }
  app.use(unsubscribeRoutes().routes());
  const dashboard = dashboardRoutes(connectors);
  app.use(dashboard.routes());
  app.use(dashboard.allowedMethods());
  return app;
}

/** A middleware that runs only for paths at or below `prefix`; any other request passes by. */
function under<C extends { path: string }>(prefix: string, middleware: (ctx: C, next: Koa.Next) => unknown): (ctx: C, next: Koa.Next) => unknown {
  const below = `${prefix}/`;
  return (ctx, next) => (ctx.path === prefix || ctx.path.startsWith(below) ? middleware(ctx, next) : next());
}

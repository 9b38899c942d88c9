import type Koa from 'koa';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { ApiKeyKind } from '../core/brands/api-keys';
import type { Brand } from '../core/brands/brand';
import type { Config } from './config';
import type { DashboardViewer } from './dashboard/dashboard-session';
import type { ConnectorParts } from './http/connector';
import type { IngestBatchers } from './write-batch-settings';

export interface AppDeps {
  db: Knex;
  config: Config;
  logger: Logger;
  /** The connectors whose routes are mounted; read from the environment by createApp when absent. */
  connectors?: readonly ConnectorParts[];
}

export interface AppState {
  /** The request body exactly as received: signatures are computed over these bytes. */
  rawBody?: Buffer;
  /** The authenticated brand (API key or signature). */
  brand?: Brand;
  /** The API key that authenticated the request (X-API-Key): who made a reward transition. */
  apiKeyId?: string;
  /** Its kind: a publishable key's request may come from anyone (a storefront page). */
  apiKeyKind?: ApiKeyKind;
  /** Set by the routes a storefront page may call (acceptPublishableKey): a `pk_` key is accepted there. */
  acceptsPublishableKey?: boolean;
  /** The dashboard's signed-in viewer (session cookie or a platform's embedded session). */
  viewer?: DashboardViewer;
}

export interface AppContext {
  deps: AppDeps;
  /** Group commit for conversions, refunds and claims (server/write-batch-settings.ts). */
  batchers: IngestBatchers;
}

export type Ctx = Koa.ParameterizedContext<AppState, AppContext>;
export type Middleware = Koa.Middleware<AppState, AppContext>;

import type { Brand } from '../../core/brands/brand';
import type Router from '@koa/router';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AppContext, AppState, Ctx } from '../app-context';
import type { Command } from '../cli/command';
import type { Config } from '../config';

/** What the composition root hands a connector's workers: the process's database, config and logger. */
export interface ConnectorDeps {
  db: Knex;
  config: Config;
  logger: Logger;
}

/** Background work a connector runs while the server is up; stopped (and awaited) on shutdown. */
export interface Worker {
  stop(): Promise<void>;
}

/** A table of a connection's state, as text the dashboard renders (and escapes) as it is. */
export interface ConnectionTable {
  caption: string;
  columns: string[];
  rows: Array<Array<string | number | null>>;
}

/** What a connector shows on the dashboard's Connections page for one brand. */
export interface ConnectionSection {
  title: string;
  /** One sentence: how the connection stands. */
  summary: string;
  facts: Array<[label: string, value: string]>;
  tables: ConnectionTable[];
  /** What the merchant should do, one line per problem; empty when nothing needs doing. */
  actions: string[];
}

/** A dashboard request authenticated by a platform's own session (an app embedded in its admin). */
export interface EmbeddedSession {
  brand_id: string;
  /** The shop (or store) whose admin frames the dashboard. */
  shop: string;
  /** The platform's user signed in to that admin, when the token names one (recorded as who decided). */
  user?: string;
  /** Origins allowed to frame the pages (CSP frame-ancestors). */
  frame_ancestors: string[];
  /** The platform's own runtime script the page must load first (e.g. Shopify App Bridge), and its meta tags. */
  runtime_script: string;
  runtime_meta: Record<string, string>;
}

/** A connector's part of the merchant's dashboard. */
export interface DashboardParts {
  /** The brand's connection to this platform; null when the brand does not use it. */
  connection?(db: Knex, brandId: string): Promise<ConnectionSection | null>;
  /**
   * Authenticates a request from inside the platform's admin (its session token); null when the
   * request carries none, an HttpError (401) when it carries a bad one.
   */
  embeddedSession?(ctx: Ctx): Promise<EmbeddedSession | null>;
}

/** A connector with its settings read: what the server mounts, starts and registers. */
export interface ConnectorParts {
  /** Mounted by createApp after the HTTPS check, outside /api/v1's per-IP rate limits. */
  routes?(): Router<AppState, AppContext>;
  /** Started by server/main.ts once the app is built; each is stopped on shutdown. */
  startWorkers?(deps: ConnectorDeps): Worker[];
  /** Registered with the `referrals` CLI under their words (e.g. `shopify inbox`). */
  cliCommands?: Record<string, Command>;
  /** Its part of the merchant's dashboard: a section of the Connections page, embedded sign-in. */
  dashboard?: DashboardParts;
  /**
   * Refuses program settings its platform cannot apply for this brand (a Shopify code discount
   * cannot cap a percentage): throws core's Invalid naming the field. Called before a change is saved.
   */
  checkSettings?(db: Knex, brand: Brand, settings: Brand): Promise<void>;
}

/**
 * A platform connector (connectors/<name>/index.ts). `configure` validates the connector's
 * environment variables with zod, once per process, and throws on a bad value so a deployment
 * fails at start-up, not on a later request; state its parts share is created there too.
 */
export interface Connector {
  name: string;
  configure(env: NodeJS.ProcessEnv): ConnectorParts;
}

import type Router from '@koa/router';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AppContext, AppState } from '../app-context';
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

/** A connector with its settings read: what the server mounts, starts and registers. */
export interface ConnectorParts {
  /** Mounted by createApp after the HTTPS check, outside /api/v1's per-IP rate limits. */
  routes?(): Router<AppState, AppContext>;
  /** Started by server/main.ts once the app is built; each is stopped on shutdown. */
  startWorkers?(deps: ConnectorDeps): Worker[];
  /** Registered with the `referrals` CLI under their words (e.g. `shopify inbox`). */
  cliCommands?: Record<string, Command>;
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

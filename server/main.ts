import http from 'node:http';
import { createDatabase, isEmbedded } from '../core/db/create-database';
import { migrateToLatest } from '../core/db/migrate';
import { startShopifyInboxWorker } from '../connectors/shopify/inbox-worker';
import { createApp } from './app';
import { adminSocketPath, serveAdminSocket } from './cli/admin-socket';
import { runCli } from './cli/run-cli';
import { loadConfig } from './config';
import { createLogger } from './logger';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const db = createDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const ran = await migrateToLatest(db);
  if (ran.length > 0) logger.info({ migrations: ran }, 'migrations applied');

  const app = createApp({ db, config, logger });
  const shopifyInbox = startShopifyInboxWorker({ db, config, logger });
  const server = http.createServer(app.callback());
  const admin = isEmbedded(db)
    ? serveAdminSocket(adminSocketPath(config.dataDir), (argv) =>
        runCli(argv, { db, config, isTTY: false, progress: () => undefined }),
      )
    : null;
  server.listen(config.port, () =>
    logger.info({ port: config.port, database: config.databaseUrl ? 'postgresql' : `embedded (${config.dataDir})` }, 'listening'),
  );

  // Graceful shutdown: stop accepting, let in-flight requests finish, then close the pool.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    admin?.close();
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    server.close(async () => {
      await shopifyInbox.stop();
      await db.destroy();
      logger.info('stopped');
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error) => {
  process.stderr.write(`failed to start: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});

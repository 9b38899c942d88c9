import cluster from 'node:cluster';
import http from 'node:http';
import type net from 'node:net';
import type { Logger } from 'pino';
import { type Database, createDatabase, dataDirLockOf } from '../core/db/create-database';
import { DataDirInUseError } from '../core/db/data-dir-lock';
import { migrateToLatest } from '../core/db/migrate';
import { DatabaseUnreachableError, waitForDatabase } from '../core/db/wait-for-database';
import { createApp } from './app';
import { startCacheInvalidation } from './cache-invalidation';
import { runClusterPrimary } from './cluster';
import { ClusterSettingError, loadWebConcurrency } from './cluster-settings';
import { serveAdminSocket } from './cli/admin-socket';
import { runCli } from './cli/run-cli';
import { loadConfig, publicUrlOf } from './config';
import { closeRateLimits } from './middleware/rate-limit';
import { configureConnectors, startConnectorWorkers } from './connectors';
import { loadRewardApprovalInterval, startRewardApproval } from './reward-approval-worker';
import { drainable } from './drain-http-server';
import { afterAnswerSettled } from './after-answer';
import { EXIT } from './exit-codes';
import { loadLifecycleSettings } from './lifecycle-settings';
import { createLogger } from './logger';
import { shutdownOnSignals } from './shutdown-on-signals';
import { startMailWorker } from './mail/deliver-mail';
import { startImportWorker } from './advocate-import-worker';
import { startStatisticsWorker } from './statistics-worker';
import { startMerchantNoticeWorker } from './merchant-notice-worker';
import { mailSettingsOf } from './mail/mail-settings';
import { createMailTransport } from './mail/mail-transport';
import { startWebhookWorker } from './webhooks/deliver-webhooks';
import { webhookSettingsOf } from './webhooks/webhook-settings';

function closed(server: net.Server | null): Promise<void> {
  return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
}

/** Waits for PostgreSQL (not the embedded database, which is in this process) and migrates it. */
async function prepareDatabase(db: Database, databaseUrl: string | undefined, startupTimeoutMs: number, logger: Logger): Promise<void> {
  if (databaseUrl) {
    await waitForDatabase(db, {
      timeoutMs: startupTimeoutMs,
      onFailedAttempt: (attempt, error, retryInMs) =>
        logger.warn({ attempt, error: error.message, retryInMs }, retryInMs === null ? 'database unreachable; giving up' : 'database unreachable; retrying'),
    });
  }
  const ran = await migrateToLatest(db);
  if (ran.length > 0) logger.info({ migrations: ran }, 'migrations applied');
}

/** WEB_CONCURRENCY > 1: the database is prepared once, here, before the workers start (one migrator). */
async function primary(workers: number): Promise<void> {
  const config = loadConfig();
  void config.keyEncryptionSecret; // made now, if it must be, before the workers read it
  const settings = loadLifecycleSettings();
  configureConnectors();
  const logger = createLogger(config.logLevel);
  const db = createDatabase({ databaseUrl: config.databaseUrl, poolMax: 1 });
  await prepareDatabase(db, config.databaseUrl, settings.databaseStartupTimeoutMs, logger);
  await db.destroy();
  process.exit(await runClusterPrimary({ workers, logger }));
}

async function main(): Promise<void> {
  const config = loadConfig();
  const settings = loadLifecycleSettings();
  const connectors = configureConnectors(); // a malformed connector setting stops the start
  const approvalIntervalSeconds = loadRewardApprovalInterval();
  const rootLogger = createLogger(config.logLevel);
  // Under WEB_CONCURRENCY every line says which process wrote it.
  const logger = cluster.isWorker ? rootLogger.child({ pid: process.pid }) : rootLogger;
  const db = createDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });

  // The CLI may connect as soon as we own the data directory; its commands wait for the migrations.
  let migrated!: () => void;
  const ready = new Promise<void>((resolve) => (migrated = resolve));
  const lock = dataDirLockOf(db);
  const admin = lock
    ? serveAdminSocket(lock, async (argv) => {
        await ready;
        return runCli(argv, { db, config, connectors, isTTY: false, progress: () => undefined });
      })
    : null;

  await prepareDatabase(db, config.databaseUrl, settings.databaseStartupTimeoutMs, logger);
  migrated();

  const cacheInvalidation = startCacheInvalidation({ databaseUrl: config.databaseUrl, logger });
  const app = createApp({ db, config, logger, connectors });
  const workers = startConnectorWorkers(connectors, { db, config, logger });
  const rewardApproval = startRewardApproval({ db, logger }, approvalIntervalSeconds);
  const webhookWorker = startWebhookWorker({ db, encryptionSecret: config.keyEncryptionSecret, settings: webhookSettingsOf(config), logger });
  const mailSettings = mailSettingsOf(config);
  const mailWorker = startMailWorker({
    db,
    transport: createMailTransport(mailSettings, config.dataDir, logger),
    settings: mailSettings,
    publicUrl: publicUrlOf(config),
    secret: config.keyEncryptionSecret,
    logger,
  });
  const importWorker = startImportWorker({ db, logger });
  const statisticsWorker = startStatisticsWorker({ db, logger });
  const noticeWorker = startMerchantNoticeWorker({ db, logger });
  const server = http.createServer(app.callback());
  const httpServer = drainable(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, resolve);
  });
  logger.info({ port: config.port, database: config.databaseUrl ? 'postgresql' : `embedded (${lock?.dataDir ?? 'memory'})` }, 'listening');

  // Every request read gets its answer, its rate-limit count is shared, the inbox gets its current pass, then the database (and its lock) closes.
  shutdownOnSignals({ timeoutMs: settings.shutdownTimeoutMs, logger }, async () => {
    const adminClosed = closed(admin);
    await httpServer.drain();
    await afterAnswerSettled(app); // what answered requests left to do (sign-in links)
    await closeRateLimits(app); // the last requests' counts reach the other instances
    await workers.stop();
    await rewardApproval.stop();
    await webhookWorker.stop();
    await mailWorker.stop();
    await importWorker.stop();
    await statisticsWorker.stop();
    await noticeWorker.stop();
    await cacheInvalidation.stop();
    await adminClosed;
    await db.destroy();
  });
}

/** Where PostgreSQL was looked for, without the password. */
function databaseLocation(url: string | undefined): string {
  try {
    const parsed = new URL(url ?? '');
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'DATABASE_URL';
  }
}

async function start(): Promise<void> {
  if (cluster.isWorker) return main();
  const workers = loadWebConcurrency();
  return workers > 1 ? primary(workers) : main();
}

start().catch((error: unknown) => {
  if (error instanceof ClusterSettingError) {
    process.stderr.write(`refusing to start: ${error.message}\n`);
    process.exit(EXIT.failed);
  }
  if (error instanceof DataDirInUseError) {
    process.stderr.write(`refusing to start: ${error.message}. Stop it first; while it runs, \`npx referrals\` talks to it.\n`);
    process.exit(EXIT.dataDirInUse);
  }
  if (error instanceof DatabaseUnreachableError) {
    process.stderr.write(`failed to start: PostgreSQL at ${databaseLocation(process.env.DATABASE_URL)}: ${error.message}\n`);
    process.exit(EXIT.databaseUnreachable);
  }
  process.stderr.write(`failed to start: ${(error as Error).stack ?? error}\n`);
  process.exit(EXIT.failed);
});

import type { Logger } from 'pino';
import { EXIT } from './exit-codes';

/**
 * On SIGTERM or SIGINT, runs `shutdown` once and exits 0, or EXIT.shutdownTimedOut when it has not
 * finished within `timeoutMs`. A repeated signal does not cut the drain short: `npm start` relays
 * the terminal's Ctrl-C (and systemd signals the whole group), so one stop often arrives twice.
 */
export function shutdownOnSignals(options: { timeoutMs: number; logger: Logger }, shutdown: () => Promise<void>): void {
  const { logger, timeoutMs } = options;
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.info({ signal }, 'already shutting down');
      return;
    }
    stopping = true;
    logger.info({ signal, timeoutMs }, 'shutting down');
    setTimeout(() => {
      logger.error({ timeoutMs }, 'shutdown did not finish in time; exiting anyway');
      process.exit(EXIT.shutdownTimedOut);
    }, timeoutMs);
    shutdown().then(
      () => {
        logger.info('stopped');
        process.exit(EXIT.ok);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(EXIT.failed);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { EXIT } from './exit-codes';

/**
 * The primary of WEB_CONCURRENCY: forks `workers` copies of this program, which share the port
 * (node:cluster hands each connection to one of them). SIGTERM or SIGINT is passed to every worker,
 * each drains as a lone server would, and the primary exits once all have, with the first
 * failure's code. A worker that dies after it served is replaced; one that cannot start stops all
 * (another fork would fail the same way). Resolves with the code to exit with.
 */
export function runClusterPrimary(options: { workers: number; logger: Logger }): Promise<number> {
  const { logger } = options;
  const serving = new Set<number>();
  let alive = 0;
  let stopping = false;
  let exitCode: number = EXIT.ok;
  const fork = () => {
    alive += 1;
    return cluster.fork();
  };
  const stopAll = (signal: NodeJS.Signals) => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };
  return new Promise((resolve) => {
    cluster.on('listening', (worker: Worker) => serving.add(worker.id));
    cluster.on('exit', (worker: Worker, code: number | null, signal: string | null) => {
      alive -= 1;
      const failed = code !== 0 || signal !== null;
      if (failed && !stopping && serving.has(worker.id)) {
        logger.error({ pid: worker.process.pid, code, signal }, 'server worker died; starting another');
        fork();
      } else if (failed) {
        if (exitCode === EXIT.ok) exitCode = code || EXIT.failed;
        if (!stopping) {
          logger.error({ pid: worker.process.pid, code, signal }, 'server worker could not start; stopping the others');
          stopAll('SIGTERM');
        }
      }
      if (alive === 0) resolve(exitCode);
    });
    process.on('SIGTERM', () => stopAll('SIGTERM'));
    process.on('SIGINT', () => stopAll('SIGTERM'));
    for (let i = 0; i < options.workers; i += 1) fork();
    logger.info({ workers: options.workers }, 'server processes started (WEB_CONCURRENCY)');
  });
}

import { EventEmitter } from 'node:events';
import { startPollingWorker } from '../../core/jobs/polling-worker';
import type { ConnectorDeps } from '../../server/http';
import { processInbox } from './process-inbox';

/**
 * Rung by the webhook route when it keeps a delivery, heard by the inbox worker: the Shopify
 * connector creates one and hands it to both, so no delivery waits for the next sweep.
 */
export class InboxBell {
  private readonly emitter = new EventEmitter();

  ring(): void {
    this.emitter.emit('delivery');
  }

  /** Calls `listener` on every ring until the returned function is called. */
  listen(listener: () => void): () => void {
    this.emitter.on('delivery', listener);
    return () => this.emitter.off('delivery', listener);
  }
}

export interface InboxWorker {
  /** Process what is due now (called right after a delivery is acknowledged). */
  kick(): void;
  stop(): Promise<void>;
}

const SWEEP_MS = 5_000;

export interface InboxWorkerOptions {
  /** Only this brand's deliveries (tests, an operator's one-off run). */
  brandId?: string;
  /** How often due retries (and deliveries left by a crash) are looked for. */
  sweepMs?: number;
}

/**
 * Processes the inbox in the background: whenever `bell` rings (a delivery was acknowledged), and
 * every few seconds for retries that have come due (and deliveries left by a crash). A pass works
 * several batches at once (see processInbox); the loop is core's polling worker.
 */
export function startShopifyInboxWorker(deps: ConnectorDeps & { bell?: InboxBell }, options: InboxWorkerOptions = {}): InboxWorker {
  return startPollingWorker({
    pass: async () => {
      const { done, retrying, failed } = await processInbox(deps.db, { logger: deps.logger, limit: 1_000, brandId: options.brandId });
      return done + retrying + failed;
    },
    intervalMs: options.sweepMs ?? SWEEP_MS,
    onError: (error) => deps.logger.error({ err: error }, 'shopify inbox pass failed'),
    listen: deps.bell ? (kick) => deps.bell!.listen(kick) : undefined,
  });
}

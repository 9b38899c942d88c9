/**
 * The loop behind every background worker that works a table of due rows (the Shopify inbox,
 * outbound webhook deliveries): one pass at a time; a kick during a pass, or a pass that found
 * work, runs another pass right after it, so a burst drains without waiting; a sweep every
 * `intervalMs` picks up retries that came due and rows left by a crash.
 */
export interface PollingWorker {
  /** Work what is due now. */
  kick(): void;
  /** No new pass starts; resolves when the current one ends. */
  stop(): Promise<void>;
}

export interface PollingWorkerOptions {
  /** One pass; returns how many rows it worked (0: nothing was due). */
  pass: () => Promise<number>;
  intervalMs: number;
  onError: (error: unknown) => void;
  /** Subscribes `kick` to a signal (a bell rung when work is written); returns the unsubscribe. */
  listen?: (kick: () => void) => () => void;
  /**
   * How long to rest after a pass that found work and took `passMs`, before the next (default 0):
   * a worker that shares its process with request handling leaves it room while it drains a backlog.
   */
  restAfterMs?: (passMs: number) => number;
}

export function startPollingWorker(options: PollingWorkerOptions): PollingWorker {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let endRest: (() => void) | null = null;
  const passes = async () => {
    let found = false;
    do {
      again = false;
      const started = Date.now();
      found = (await options.pass()) > 0;
      const rest = found && options.restAfterMs ? options.restAfterMs(Date.now() - started) : 0;
      if (rest > 0 && !stopped) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, rest);
          endRest = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        endRest = null;
      }
    } while ((again || found) && !stopped);
  };
  const run = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = passes()
      .catch(options.onError)
      .finally(() => {
        running = null;
      });
  };
  const sweep = setInterval(run, options.intervalMs);
  sweep.unref();
  const kick = () => setImmediate(run);
  const unlisten = options.listen?.(kick);
  setImmediate(run); // rows left by a crash or a restart
  return {
    kick,
    async stop() {
      stopped = true;
      endRest?.(); // a rest between passes ends at once
      clearInterval(sweep);
      unlisten?.();
      await running;
    },
  };
}

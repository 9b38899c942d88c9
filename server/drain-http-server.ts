import type http from 'node:http';
import net from 'node:net';

export interface DrainableServer {
  /**
   * Stops accepting connections, answers every request already read and every one still written
   * on a kept-alive connection with `Connection: close` (each connection closed after its last
   * response), closes the connections still idle after a short grace, and resolves once the last
   * connection has ended.
   */
  drain(): Promise<void>;
}

/** How long a kept-alive connection idle at the drain may still carry a request (answered, then closed). */
export const IDLE_GRACE_MS = 1_000;

/**
 * Node's `server.close()` closes the connections idle at that instant: a keep-alive client may be
 * writing its next request on one just then, and gets a reset for a request it sent (ECONNRESET).
 * So the drain stops accepting connections only (net.Server's close), and lets each kept-alive
 * connection end after a response that says `Connection: close` — a request that arrives on it
 * during the drain is answered like any other. A connection no request comes on is closed after
 * IDLE_GRACE_MS: a client that has sent nothing for that long is not in the middle of sending.
 * Written on Node's own connection tracking (`closeIdleConnections` knows a half-received request
 * is not idle) rather than with a terminator library that keeps accepting, then resets, new
 * connections.
 */
export function drainable(server: http.Server, idleGraceMs = IDLE_GRACE_MS): DrainableServer {
  let draining = false;
  let graceOver = false;
  const inFlight = new Set<http.ServerResponse>();
  const lastOnItsConnection = (res: http.ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  server.prependListener('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    inFlight.add(res);
    if (draining) lastOnItsConnection(res);
    res.once('close', () => {
      inFlight.delete(res);
      // A response whose headers went out before the drain leaves its connection idle: after the grace, closed.
      if (graceOver) server.closeIdleConnections();
    });
  });
  return {
    drain() {
      draining = true;
      for (const res of inFlight) lastOnItsConnection(res);
      return new Promise((resolve, reject) => {
        // Not http.Server's close, which would also close every idle kept-alive connection at once.
        net.Server.prototype.close.call(server, (error?: Error) => {
          clearTimeout(grace);
          if (error && (error as NodeJS.ErrnoException).code !== 'ERR_SERVER_NOT_RUNNING') reject(error);
          else resolve();
        });
        // A response whose headers had gone out before the drain left its connection open and
        // idle, as may a client that stopped sending: after the grace, those are closed.
        const grace = setTimeout(() => {
          graceOver = true;
          server.closeIdleConnections();
        }, idleGraceMs);
        grace.unref();
      });
    },
  };
}

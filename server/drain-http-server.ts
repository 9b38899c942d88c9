import type http from 'node:http';

export interface DrainableServer {
  /**
   * Stops accepting connections, drops idle keep-alive ones, answers every request already read
   * with `Connection: close`, and resolves once the last connection has ended.
   */
  drain(): Promise<void>;
}

/**
 * Node's `server.close()` closes the connections idle at that instant only: a keep-alive client
 * busy at that moment keeps its connection, and sends the next request on it, forever. Written on
 * Node's own connection tracking (`closeIdleConnections` knows a half-received request is not idle)
 * rather than with a terminator library that keeps accepting, then resets, new connections.
 */
export function drainable(server: http.Server): DrainableServer {
  let draining = false;
  const inFlight = new Set<http.ServerResponse>();
  const lastOnItsConnection = (res: http.ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  server.prependListener('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    inFlight.add(res);
    if (draining) lastOnItsConnection(res);
    res.once('close', () => {
      inFlight.delete(res);
      // A response whose headers had gone out before the drain left its connection open and idle.
      if (draining) server.closeIdleConnections();
    });
  });
  return {
    drain() {
      draining = true;
      for (const res of inFlight) lastOnItsConnection(res);
      return new Promise((resolve, reject) => {
        server.close((error) => {
          if (error && (error as NodeJS.ErrnoException).code !== 'ERR_SERVER_NOT_RUNNING') reject(error);
          else resolve();
        });
      });
    },
  };
}

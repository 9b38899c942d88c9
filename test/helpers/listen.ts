import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '../../server/app';
import { type TestApp, startTestApp } from './test-app';

/** The app (or a bare handler) on 127.0.0.1 at `port` (0: any free one): the plugin's tests call the service over real HTTP. */
export function listen(app: App | http.RequestListener, port = 0): Promise<http.Server> {
  const listening = http.createServer(typeof app === 'function' ? app : app.callback());
  return new Promise((resolve) => listening.listen(port, '127.0.0.1', () => resolve(listening)));
}

export function closeServer(stopping: http.Server): Promise<void> {
  return new Promise((resolve) => stopping.close(() => resolve()));
}

/**
 * The service on a port for a file's tests (a Medusa plugin calls it over HTTP): started before
 * them and handed to `ready` (before the file's later beforeAll hooks), closed after.
 */
export function useListeningService(ready: (listening: { service: TestApp; serviceUrl: string }) => void): void {
  let server: http.Server | null = null;
  beforeAll(async () => {
    const service = await startTestApp();
    server = await listen(service.app);
    ready({ service, serviceUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  });
  afterAll(async () => {
    if (server) await closeServer(server);
  });
}

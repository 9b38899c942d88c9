import http from 'node:http';
import net from 'node:net';
import { givenAdvocate, givenBrand } from '../helpers/fixtures';
import { TEST_SECRET } from '../helpers/test-app';
import {
  type Spawned,
  freePort,
  killGroup,
  killIfRunning,
  processEnv,
  removeScratch,
  serverDatabase,
  spawnProcess,
  startServer,
  untilGroupEmpty,
  untilReady,
} from './processes';

afterAll(removeScratch);

interface Outcome {
  orderId: string;
  status?: number;
  connection?: string;
  body?: string;
  error?: string;
  /** The answer (or error) came after SIGTERM was sent. */
  answeredAfterSigterm: boolean;
}

interface Answer {
  status: number;
  connection?: string;
  body: string;
}

/** A conversion request whose headers are sent; the caller ends it with the body. */
function conversionRequest(agent: http.Agent | false, port: number, headers: Record<string, string>, body: string) {
  let request!: http.ClientRequest;
  const answer = new Promise<Answer>((resolve, reject) => {
    request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/v1/track/conversion',
        method: 'POST',
        agent,
        headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, connection: response.headers.connection, body: text }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
  });
  return { request, answer };
}

function post(agent: http.Agent, port: number, headers: Record<string, string>, body: string): Promise<Answer> {
  const { request, answer } = conversionRequest(agent, port, headers, body);
  request.end(body);
  return answer;
}

/** Resolves once nothing accepts connections on `port` any more (a draining server has closed its listener). */
async function untilRefused(port: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const probe = net.connect(port, '127.0.0.1', () => {
        probe.destroy();
        resolve(false);
      });
      probe.on('error', () => resolve(true));
    });
    if (refused) return;
    if (Date.now() > deadline) throw new Error(`port ${port} still accepted connections ${timeoutMs} ms after SIGTERM`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('shutdown', () => {
  it('under keep-alive load, SIGTERM answers every request it read (with Connection: close), stores every 2xx, and exits 0', async () => {
    const database = await serverDatabase();
    const setup = await database.open();
    const brand = await givenBrand(setup);
    const advocate = await givenAdvocate(setup, brand.brandId);
    await setup.destroy(); // the embedded database has one owner: the server

    const port = await freePort();
    const env = processEnv({ ...database.env, KEY_ENCRYPTION_SECRET: TEST_SECRET, RATE_LIMIT_CONVERSION: '1000000', SHUTDOWN_TIMEOUT_MS: '30000' });
    let server: Spawned | undefined;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
    try {
      server = await startServer(env, port);
      const outcomes: Outcome[] = [];
      let sigtermSent = false;
      const hardStop = Date.now() + 60_000;
      const client = async (clientId: number) => {
        for (let n = 0; n < 2_000 && Date.now() < hardStop; n += 1) {
          const orderId = `keepalive-${clientId}-${n}`;
          const body = JSON.stringify({ email: `c${clientId}-${n}@example.com`, order_id: orderId, order_value: 25, referral_code: advocate.code });
          try {
            outcomes.push({ orderId, ...(await post(agent, port, brand.headers, body)), answeredAfterSigterm: sigtermSent });
          } catch (error) {
            outcomes.push({ orderId, error: (error as NodeJS.ErrnoException).code ?? (error as Error).message, answeredAfterSigterm: sigtermSent });
            return; // the server is going away: this client is done
          }
        }
      };
      const clients = Array.from({ length: 32 }, (_, id) => client(id));
      // One request is surely in flight when the drain begins: the server has read its headers
      // (its "100 Continue" says so) and its body is sent only once the server stopped listening.
      const heldBody = JSON.stringify({ email: 'held@example.com', order_id: 'held', order_value: 25, referral_code: advocate.code });
      const held = conversionRequest(false, port, { ...brand.headers, Expect: '100-continue' }, heldBody);
      const heldRead = new Promise((resolve) => held.request.once('continue', resolve));
      held.request.flushHeaders();
      await heldRead;
      while (outcomes.length < 200 && Date.now() < hardStop) await new Promise((resolve) => setTimeout(resolve, 20));
      server.child.kill('SIGTERM');
      sigtermSent = true;
      await untilRefused(port);
      held.request.end(heldBody);
      const heldAnswer = await held.answer;
      const exit = await server.exited;
      await Promise.all(clients);

      expect(exit).toEqual({ code: 0, signal: null });
      const answered = outcomes.filter((outcome) => outcome.status !== undefined);
      const failed = outcomes.filter((outcome) => outcome.error !== undefined);
      expect(answered.filter((outcome) => outcome.status !== 201)).toEqual([]);
      for (const outcome of answered) expect(JSON.parse(outcome.body!)).toMatchObject({ success: true, data: { order_value: 25 } });
      // A request in flight when the drain began was finished, and told the connection would close.
      expect(heldAnswer).toMatchObject({ status: 201, connection: 'close' });
      expect(JSON.parse(heldAnswer.body)).toMatchObject({ success: true, data: { order_value: 25 } });
      // Every failure happened because the server was stopping, on a request it never read.
      expect(failed.filter((outcome) => !outcome.answeredAfterSigterm)).toEqual([]);
      // And none was a request written on a kept-alive connection and then cut (ECONNRESET): a
      // client could only fail to connect once the server stopped listening.
      expect(failed.filter((outcome) => outcome.error !== 'ECONNREFUSED')).toEqual([]);

      const after = await database.open();
      try {
        const stored = new Set(
          (await after('conversions').where({ brand_id: brand.brandId }).select('order_id')).map((row: { order_id: string }) => row.order_id),
        );
        expect(answered.filter((outcome) => !stored.has(outcome.orderId))).toEqual([]);
        expect(failed.filter((outcome) => stored.has(outcome.orderId))).toEqual([]);
        expect(stored.has('held')).toBe(true);
        expect(stored.size).toBe(answered.length + 1);
      } finally {
        await after.destroy();
      }
    } finally {
      agent.destroy();
      killIfRunning(server);
    }
  }, 240_000);

  it('cuts off a request that never finishes after SHUTDOWN_TIMEOUT_MS and exits with code 5', async () => {
    const database = await serverDatabase();
    const port = await freePort();
    let server: Spawned | undefined;
    const socket = new net.Socket();
    try {
      // On PostgreSQL the per-IP conversion count is shared with every test from 127.0.0.1: a 429 would end the request.
      server = await startServer(processEnv({ ...database.env, SHUTDOWN_TIMEOUT_MS: '1500', LOG_LEVEL: 'info', RATE_LIMIT_CONVERSION: '1000000' }), port);
      // Headers promise a body that never comes: the request stays in flight. The server's
      // "100 Continue" proves it has read the request, so SIGTERM cannot find the connection idle.
      await new Promise<void>((resolve) => socket.connect(port, '127.0.0.1', resolve));
      socket.on('error', () => undefined);
      const continued = new Promise<void>((resolve, reject) =>
        socket.once('data', (chunk: Buffer) => (chunk.toString().startsWith('HTTP/1.1 100') ? resolve() : reject(new Error(`not a 100 Continue: ${chunk}`)))),
      );
      socket.write('POST /api/v1/track/conversion HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n');
      await continued;
      socket.write('{"email":');
      const sent = Date.now();
      server.child.kill('SIGTERM');
      expect(await server.exited).toEqual({ code: 5, signal: null });
      expect(Date.now() - sent).toBeGreaterThanOrEqual(1_500);
      expect(Date.now() - sent).toBeLessThan(10_000);
      expect(server.stdout()).toContain('shutdown did not finish in time');
    } finally {
      socket.destroy();
      killIfRunning(server);
    }
  }, 180_000);

  it('stops cleanly when Ctrl-C reaches the whole `npm start` process group (npm relays the SIGINT too)', async () => {
    const database = await serverDatabase();
    const port = await freePort();
    const npm = spawnProcess(['npm', 'start'], processEnv({ ...database.env, PORT: String(port), LOG_LEVEL: 'info' }), { detached: true });
    try {
      await untilReady(npm, port);
      process.kill(-npm.child.pid!, 'SIGINT');
      expect(await npm.exited).toEqual({ code: 0, signal: null });
      expect(npm.stdout()).toContain('"msg":"stopped"');
      await untilGroupEmpty(npm);
    } finally {
      killGroup(npm);
    }
  }, 180_000);
});

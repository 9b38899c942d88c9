import net from 'node:net';
import { realPostgres } from '../helpers/real-postgres';
import { type Spawned, freePort, killIfRunning, processEnv, SERVER_COMMAND, spawnProcess, untilReady } from './processes';

interface Attempt {
  msg: string;
  attempt: number;
  retryInMs: number | null;
}

function attemptsLogged(server: Spawned): Attempt[] {
  return server
    .stdout()
    .split('\n')
    .filter((line) => line.includes('database unreachable'))
    .map((line) => JSON.parse(line) as Attempt);
}

describe('start-up with PostgreSQL unreachable', () => {
  it('retries with exponential backoff, logging each attempt, then exits 4 naming where it looked (not the password)', async () => {
    const port = await freePort(); // nothing listens there
    const started = Date.now();
    const server = spawnProcess(
      SERVER_COMMAND,
      processEnv({ DATABASE_URL: `postgres://postgres:s3cret@127.0.0.1:${port}/referrals`, DATABASE_STARTUP_TIMEOUT_SECONDS: '3', PORT: String(await freePort()) }),
    );
    try {
      expect(await server.exited).toEqual({ code: 4, signal: null });
      expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
      const attempts = attemptsLogged(server);
      expect(attempts.slice(0, 3)).toEqual([
        expect.objectContaining({ attempt: 1, retryInMs: 250, msg: 'database unreachable; retrying' }),
        expect.objectContaining({ attempt: 2, retryInMs: 500 }),
        expect.objectContaining({ attempt: 3, retryInMs: 1000 }),
      ]);
      expect(attempts.at(-1)).toMatchObject({ retryInMs: null, msg: 'database unreachable; giving up' });
      expect(server.stderr()).toContain(`failed to start: PostgreSQL at 127.0.0.1:${port}/referrals: the database did not answer in 3 s`);
      expect(server.stderr() + server.stdout()).not.toContain('s3cret');
    } finally {
      killIfRunning(server);
    }
  }, 60_000);

  it('starts once PostgreSQL becomes reachable during the wait', async () => {
    const postgres = await realPostgres({ ownDatabase: true }); // the server's workers sweep every brand: not the shared database
    const target = postgres.db.client.connectionSettings as { user: string; password?: string; host: string; port?: string; database: string };
    const proxyPort = await freePort();
    // The database "comes up" late: a TCP proxy to the real one, started after a few failed attempts.
    const piped = new Set<net.Socket>();
    const proxy = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.host);
      piped.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    const credentials = target.password ? `${target.user}:${encodeURIComponent(target.password)}` : target.user;
    const viaProxy = `postgres://${credentials}@127.0.0.1:${proxyPort}/${target.database}`;
    const port = await freePort();
    const server = spawnProcess(SERVER_COMMAND, processEnv({ DATABASE_URL: viaProxy, PORT: String(port) }));
    try {
      while (attemptsLogged(server).length < 3) {
        if (server.child.exitCode !== null) throw new Error(`exited early: ${server.stdout()} ${server.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await new Promise<void>((resolve) => proxy.listen(proxyPort, '127.0.0.1', resolve));
      await untilReady(server, port, 30_000);
      expect(attemptsLogged(server).every((attempt) => attempt.retryInMs !== null)).toBe(true);
    } finally {
      killIfRunning(server);
      await server.exited;
      proxy.close();
      for (const socket of piped) socket.destroy();
      await postgres.close();
    }
  }, 60_000);
});

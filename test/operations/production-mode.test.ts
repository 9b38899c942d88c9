import { COMPILED } from '../helpers/compiled-build';
import { type RealPostgres, realPostgres } from '../helpers/real-postgres';
import { postgresUrlOf } from '../performance-features/postgres-url';
import {
  type Spawned, childPids, freePort, killGroup, processEnv, removeScratch, spawnProcess, tempDataDir, untilGroupEmpty, untilReady,
} from './processes';

const COMPILED_SERVER = COMPILED.server;

let postgres: RealPostgres;
let running: Spawned | undefined;
// What a deployment runs: `npm run build` (globalSetup ran it for this run), then the compiled JavaScript.
beforeAll(async () => {
  postgres = await realPostgres({ ownDatabase: true }); // its servers' workers sweep every brand: not the shared database
}, 120_000);
afterEach(() => killGroup(running));
afterAll(async () => {
  await postgres?.close();
  removeScratch();
});

/** The pids that wrote a request log line for GET /readyz. */
function pidsThatAnswered(log: string): Set<number> {
  const lines = log.split('\n').filter((line) => line.includes('"path":"/readyz"'));
  return new Set(lines.map((line) => JSON.parse(line).pid as number));
}

async function untilLogged(spawned: Spawned, line: RegExp, times: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((spawned.stdout().match(line) ?? []).length < times) {
    if (Date.now() > deadline) throw new Error(`${line} was not logged ${times} times in ${timeoutMs} ms:\n${spawned.stdout()}\n${spawned.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('production mode: compiled JavaScript and WEB_CONCURRENCY', () => {
  it('npm run start:prod serves /readyz from dist/ and stops on SIGTERM', async () => {
    const port = await freePort();
    running = spawnProcess(['npm', 'run', 'start:prod'], processEnv({ DATABASE_URL: postgresUrlOf(postgres.db), PORT: String(port) }), { detached: true });
    await untilReady(running, port, 30_000);
    expect(await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()).toEqual({ success: true, data: { status: 'ready' } });
    process.kill(running.child.pid!, 'SIGTERM');
    await running.exited;
    await untilGroupEmpty(running);
  }, 60_000);

  it('WEB_CONCURRENCY=2 forks two server processes that both answer, and SIGTERM to the primary stops them all', async () => {
    const port = await freePort();
    const env = processEnv({ DATABASE_URL: postgresUrlOf(postgres.db), WEB_CONCURRENCY: '2', LOG_LEVEL: 'info', PORT: String(port) });
    running = spawnProcess(['node', COMPILED_SERVER], env, { detached: true });
    await untilReady(running, port, 30_000);
    await untilLogged(running, /"msg":"listening"/g, 2); // ready means one is; the other may be a moment behind
    const workers = childPids(running.child.pid!);
    expect(workers).toHaveLength(2);
    // node:cluster deals new connections round-robin: a few requests reach both.
    for (let i = 0; i < 10; i += 1) expect((await fetch(`http://127.0.0.1:${port}/readyz`, { headers: { Connection: 'close' } })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the last log lines
    expect([...pidsThatAnswered(running.stdout())].sort()).toEqual([...workers].sort());
    process.kill(running.child.pid!, 'SIGTERM');
    expect(await running.exited).toEqual({ code: 0, signal: null });
    await untilGroupEmpty(running);
  }, 60_000);

  it('refuses WEB_CONCURRENCY=2 on the embedded database, saying it runs in one process', async () => {
    const refused = spawnProcess(['node', COMPILED_SERVER], processEnv({ DATA_DIR: tempDataDir(), WEB_CONCURRENCY: '2', PORT: String(await freePort()) }));
    expect((await refused.exited).code).toBe(1);
    expect(refused.stderr()).toContain('WEB_CONCURRENCY=2 needs PostgreSQL (set DATABASE_URL): the embedded database runs inside one process');
  }, 30_000);
});

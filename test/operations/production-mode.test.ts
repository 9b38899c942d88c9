import { COMPILED } from '../helpers/compiled-build';
import { givenAdvocate, givenBrand } from '../helpers/fixtures';
import { TEST_SECRET } from '../helpers/test-app';
import { startSmtpReceiver } from '../mail/smtp-receiver';
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
  it('npm run start:prod serves /readyz from dist/, mails a conversion\'s reward_earned through SMTP_URL with a working one-click unsubscribe, and stops on SIGTERM', async () => {
    const port = await freePort();
    const smtp = await startSmtpReceiver();
    const env = processEnv({
      DATABASE_URL: postgresUrlOf(postgres.db), PORT: String(port), KEY_ENCRYPTION_SECRET: TEST_SECRET,
      SMTP_URL: smtp.url, MAIL_FROM: 'program@shop.example', MAIL_WORKER_INTERVAL_MS: '100', PUBLIC_URL: `http://127.0.0.1:${port}`,
    });
    running = spawnProcess(['npm', 'run', 'start:prod'], env, { detached: true });
    try {
      await untilReady(running, port, 30_000);
      expect(await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()).toEqual({ success: true, data: { status: 'ready' } });

      const brand = await givenBrand(postgres.db, { name: 'Prod Shop', reward_value: 4 });
      const ann = await givenAdvocate(postgres.db, brand.brandId, { email: 'ann@prod.example' });
      const convert = () =>
        fetch(`http://127.0.0.1:${port}/api/v1/track/conversion`, {
          method: 'POST',
          headers: { ...brand.headers, 'Content-Type': 'application/json' },
          body: JSON.stringify({ email: `friend-${Math.random()}@example.com`, order_id: `P-${Math.random()}`, order_value: 50, referral_code: ann.code }),
        });
      expect((await convert()).status).toBe(201);
      const [mail] = await smtp.waitFor(1);
      expect([mail!.subject, mail!.from?.text]).toEqual(['You earned $4.00 from a referral', '"Prod Shop" <program@shop.example>']);
      const unsubscribe = /<([^>]+)>/.exec(mail!.headerLines.find((line) => line.key === 'list-unsubscribe')!.line.replace(/\r?\n[ \t]+/g, ' '))![1]!;
      expect(mail!.headerLines.find((line) => line.key === 'list-unsubscribe-post')?.line).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
      // What a mail client's one-click POST sends (RFC 8058).
      const posted = await fetch(unsubscribe, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
      expect(posted.status).toBe(200);
      expect((await convert()).status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 500)); // several worker passes
      expect(smtp.received).toHaveLength(1);
      expect(await postgres.db('mail_messages').where({ brand_id: brand.brandId }).pluck('status')).toEqual(['sent']);
    } finally {
      process.kill(running.child.pid!, 'SIGTERM');
      await running.exited;
      await untilGroupEmpty(running);
      await smtp.stop();
    }
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

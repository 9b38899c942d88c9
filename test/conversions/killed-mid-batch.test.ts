import { givenAdvocate, givenBrand } from '../helpers/fixtures';
import { TEST_SECRET } from '../helpers/test-app';
import { type Spawned, freePort, killIfRunning, processEnv, removeScratch, serverDatabase, startServer } from '../operations/processes';

afterAll(removeScratch);

const products = [
  { name: 'Tee', quantity: 2, price: 10 },
  { name: 'Mug', quantity: 1, price: 12 },
  { name: 'Cap', quantity: 1, price: 8 },
];

describe('POST /api/v1/track/conversion, the server killed (kill -9) while batches are being written', () => {
  it('has stored every order it answered 201, each whole (3 product lines and its credit), and no order in part', async () => {
    const database = await serverDatabase();
    const setup = await database.open();
    // A burst for one advocate: velocity off, or the fraud rules would hold its rewards for review.
    const brand = await givenBrand(setup, { reward_type: 'fixed', reward_value: 4, reward_hold_days: 0, fraud_velocity: false });
    const advocate = await givenAdvocate(setup, brand.brandId);
    await setup.destroy(); // the embedded database has one owner: the server

    const port = await freePort();
    // A short window keeps a batch open most of the time, so the kill lands in one.
    const env = processEnv({ ...database.env, KEY_ENCRYPTION_SECRET: TEST_SECRET, RATE_LIMIT_CONVERSION: '1000000', CONVERSION_BATCH_WAIT_MS: '5' });
    let server: Spawned | undefined;
    try {
      server = await startServer(env, port);
      const acknowledged: string[] = [];
      let sent = 0;
      let killed = false;
      const hardStop = Date.now() + 60_000;
      const client = async (clientId: number) => {
        for (let n = 0; Date.now() < hardStop; n += 1) {
          const orderId = `killed-${clientId}-${n}`;
          sent += 1;
          try {
            const response = await fetch(`http://127.0.0.1:${port}/api/v1/track/conversion`, {
              method: 'POST',
              headers: { ...brand.headers, 'content-type': 'application/json' },
              body: JSON.stringify({ email: `k${clientId}-${n}@example.com`, order_id: orderId, order_value: 40, referral_code: advocate.code, products }),
            });
            if (response.status !== 201) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
            acknowledged.push(orderId);
          } catch (error) {
            if (!killed) throw new Error(`${(error as Error).message} before the kill (server exit code ${server!.child.exitCode}, signal ${server!.child.signalCode}); the server printed: ${server!.stdout()} ${server!.stderr()}`, { cause: error });
            return; // the server is gone: this client is done
          }
        }
      };
      const clients = Array.from({ length: 24 }, (_, id) => client(id));
      while (acknowledged.length < 150 && Date.now() < hardStop) await new Promise((resolve) => setTimeout(resolve, 10));
      killed = true;
      server.child.kill('SIGKILL');
      await server.exited;
      await Promise.all(clients);
      expect(acknowledged.length).toBeGreaterThanOrEqual(150);
      expect(sent).toBeGreaterThan(acknowledged.length); // some requests were cut off in flight

      const after = await database.open();
      try {
        const stored: Array<{ order_id: string; lines: string; credited: string | null }> = await after('conversions as c')
          .where({ 'c.brand_id': brand.brandId })
          .select(
            'c.order_id',
            after.raw('(SELECT count(*) FROM conversion_products p WHERE p.brand_id = c.brand_id AND p.conversion_id = c.conversion_id) AS lines'),
            after.raw(
              "(SELECT sum(amount) FROM reward_ledger r WHERE r.brand_id = c.brand_id AND r.conversion_id = c.conversion_id AND r.kind = 'credit') AS credited",
            ),
          );
        const storedIds = new Set(stored.map((row) => row.order_id));
        expect(acknowledged.filter((orderId) => !storedIds.has(orderId))).toEqual([]);
        expect(stored.filter((row) => Number(row.lines) !== 3 || row.credited !== '4.00')).toEqual([]);
        const ledger = await after('reward_ledger').where({ brand_id: brand.brandId }).count({ entries: '*' });
        expect(Number(ledger[0]!.entries)).toBe(stored.length);
      } finally {
        await after.destroy();
      }
    } finally {
      killIfRunning(server);
    }
  }, 240_000);
});

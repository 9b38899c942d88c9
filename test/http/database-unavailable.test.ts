import { randomUUID } from 'node:crypto';
import knex, { type Knex } from 'knex';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { realPostgres, type RealPostgres } from '../helpers/real-postgres';
import { signedHeaders } from '../helpers/signed-convert';
import { type TestApp, startTestApp } from '../helpers/test-app';

/** A PostgreSQL URL where nothing listens (port 1 is reserved and closed on any sane machine). */
const NOWHERE = 'postgres://postgres@127.0.0.1:1/referrals';

const OUTAGE = { success: false, error: 'the database is unavailable; retry later', code: 'database_unavailable' };

describe('when the database cannot be reached', () => {
  let down: Knex;
  let t: TestApp;
  beforeAll(async () => {
    // Silent: knex would log every refused connection attempt.
    const quiet = { warn() {}, error() {}, debug() {}, deprecate() {} };
    down = knex({ client: 'pg', connection: NOWHERE, pool: { min: 0, max: 2 }, log: quiet });
    t = await startTestApp({}, down);
  });
  afterAll(() => down.destroy());

  const someBrand = { 'X-API-Key': 'al_live_some-key', 'X-Brand-ID': randomUUID() };

  it.each(['conversion', 'refund', 'claim', 'visit', 'check-eligibility'])('POST /api/v1/track/%s returns 503 with Retry-After and code database_unavailable', async (endpoint) => {
    const response = await t.http.post(`/api/v1/track/${endpoint}`).set(someBrand).send({ email: 'c@example.com', order_id: 'o-1', order_value: 10 });
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.body).toEqual(OUTAGE);
  });

  it('POST /api/v1/convert and POST /medusa/webhooks return 503 too, so a signed sender retries', async () => {
    const body = JSON.stringify({ referral_code: 'ANN', email: 'c@example.com' });
    for (const path of ['/api/v1/convert', '/medusa/webhooks']) {
      const response = await t.http.post(path).set(signedHeaders(someBrand['X-Brand-ID'], 'some-key', body)).send(body);
      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.body).toEqual(OUTAGE);
    }
  });

  it('GET /readyz says not ready', async () => {
    expect((await t.http.get('/readyz')).status).toBe(503);
  });
});

describe('when PostgreSQL terminates the connection in the middle of a request', () => {
  let pg: RealPostgres;
  let t: TestApp;
  beforeAll(async () => {
    pg = await realPostgres();
    t = await startTestApp({}, pg.db);
  });
  afterAll(() => pg.close());

  async function backendWaitingBehind(lockerPid: number): Promise<number> {
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const { rows } = await pg.db.raw('SELECT pid FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))', [lockerPid]);
      if (rows.length > 0) return rows[0].pid as number;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('no backend ever waited for the locked conversion: the refund did not reach the database');
  }

  it('returns 503 with Retry-After, stores nothing, and the next request succeeds', async () => {
    const brand = await givenBrand(pg.db);
    const advocate = await givenAdvocate(pg.db, brand.brandId);
    const orderId = uniqueOrderId();
    const converted = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'b@example.com', order_id: orderId, order_value: 100, referral_code: advocate.code });
    expect(converted.status).toBe(201);

    // Hold the conversion's row so the refund blocks inside its transaction, then kill that backend.
    const locker = await pg.db.transaction();
    const lockerPid = (await locker.raw('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
    await locker('conversions').where({ brand_id: brand.brandId }).forUpdate().select('conversion_id');
    const refund = t.http.post('/api/v1/track/refund').set(brand.headers).send({ order_id: orderId, refund_amount: 10, is_full_refund: false, refund_id: 'r-1' });
    const answered = refund.then((response) => response);
    const victim = await backendWaitingBehind(lockerPid);
    await pg.db.raw('SELECT pg_terminate_backend(?)', [victim]);
    await locker.rollback();

    const response = await answered;
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.body).toEqual(OUTAGE);
    expect(await pg.db('refunds').where({ brand_id: brand.brandId })).toHaveLength(0);

    const retried = await t.http.post('/api/v1/track/refund').set(brand.headers).send({ order_id: orderId, refund_amount: 10, is_full_refund: false, refund_id: 'r-1' });
    expect(retried.status).toBe(200);
    expect(retried.body.data).toMatchObject({ status: 'partial_refund', refunded_total: 10 });
  });
});

import { givenAdvocate, givenBrand } from '../helpers/fixtures';
import { type RealPostgres, realPostgres } from '../helpers/real-postgres';
import { nowSeconds, signedHeaders } from '../helpers/signed-convert';
import { startTestApp } from '../helpers/test-app';

// Always on a real PostgreSQL: the replay guard must hold across server processes and connections.
let postgres: RealPostgres;
beforeAll(async () => {
  postgres = await realPostgres();
});
afterAll(() => postgres?.close());

async function signedConvert() {
  const brand = await givenBrand(postgres.db, { plan: 'starter' });
  const advocate = await givenAdvocate(postgres.db, brand.brandId);
  const raw = JSON.stringify({ referral_code: advocate.code, email: `replay-${Date.now()}@example.com`, value: 25 });
  const headers = signedHeaders(brand.brandId, brand.apiKey, raw, { timestamp: nowSeconds(), signTimestamp: true });
  return { brand, raw, headers };
}

describe('the /convert replay guard on PostgreSQL', () => {
  it('refuses with 401 on a second server instance a signed request the first already accepted', async () => {
    const first = await startTestApp({}, postgres.db);
    const second = await startTestApp({}, postgres.db);
    const { raw, headers } = await signedConvert();
    expect((await first.http.post('/api/v1/convert').set(headers).send(raw)).status).toBe(201);
    const replay = await second.http.post('/api/v1/convert').set(headers).send(raw);
    expect(replay.status).toBe(401);
    expect(replay.body.error).toMatch(/already used \(replay\)/);
  });

  it('lets exactly one of the same signed request sent to two instances at once through', async () => {
    const instances = [await startTestApp({}, postgres.db), await startTestApp({}, postgres.db)];
    const { brand, raw, headers } = await signedConvert();
    const statuses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => instances[i % 2]!.http.post('/api/v1/convert').set(headers).send(raw)),
    ).then((responses) => responses.map((response) => response.status).sort());
    expect(statuses).toEqual([201, 401, 401, 401, 401, 401]);
    expect(await postgres.db('claims').where({ brand_id: brand.brandId })).toHaveLength(1);
  });
});

import { type TestBrand, givenAdvocate, givenBrand } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';

/**
 * GET /api/v1/advocates?updated_since=: what the Medusa plugin pulls to keep its promotions in
 * step. Every change of an advocate (details, a code, the status) moves their updated_at.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

const LONG_AGO = '2026-01-01T00:00:00.000Z';
const SINCE = '2026-06-01T00:00:00Z';

const list = (brand: TestBrand, query: string) => t.http.get(`/api/v1/advocates?${query}`).set(brand.headers);
const changedSince = async (brand: TestBrand, since = SINCE) => {
  const response = await list(brand, `updated_since=${encodeURIComponent(since)}`);
  expect(response.status).toBe(200);
  return response.body.data as Array<{ advocate_id: number; status: string; referral_codes: string[]; updated_at: string }>;
};

/** A brand with three advocates, all last changed long ago. */
async function quietBrand() {
  const brand = await givenBrand(t.db, { plan: 'premier' });
  const [ann, bob, cat] = [await givenAdvocate(t.db, brand.brandId, { first_name: 'Ann' }), await givenAdvocate(t.db, brand.brandId, { first_name: 'Bob' }), await givenAdvocate(t.db, brand.brandId, { first_name: 'Cat' })];
  await t.db('advocates').where({ brand_id: brand.brandId }).update({ updated_at: LONG_AGO });
  return { brand, ann, bob, cat };
}

describe('GET /api/v1/advocates?updated_since=', () => {
  it('answers only the advocates changed at or after it: a new one, a corrected name, a new code, a deactivation (with its status)', async () => {
    const { brand, ann, bob, cat } = await quietBrand();
    expect(await changedSince(brand)).toEqual([]);
    const all = (await list(brand, '')).body.data as Array<{ updated_at: string }>;
    expect(all.map((advocate) => advocate.updated_at)).toEqual([LONG_AGO, LONG_AGO, LONG_AGO]);
    expect((await changedSince(brand, LONG_AGO)).length).toBe(3); // at or after: the boundary is included

    const created = await t.http.post('/api/v1/advocates').set(brand.headers).send({ email: `dan-${Date.now()}@example.com`, first_name: 'Dan' });
    expect(created.status).toBe(201);
    expect(created.body.data.updated_at).toEqual(expect.any(String));
    expect((await changedSince(brand)).map((advocate) => advocate.advocate_id)).toEqual([created.body.data.advocate_id]);

    expect((await t.http.patch(`/api/v1/advocates/${bob.advocateId}`).set(brand.headers).send({ first_name: 'Robert' })).status).toBe(200);
    expect((await t.http.post(`/api/v1/advocates/${ann.advocateId}/codes`).set(brand.headers).send({ code: `ANNEXTRA${Date.now()}` })).status).toBe(201);
    expect((await t.http.post(`/api/v1/advocates/${cat.advocateId}/deactivate`).set(brand.headers)).status).toBe(200);

    const changed = await changedSince(brand);
    expect(changed.map((advocate) => [advocate.advocate_id, advocate.status, advocate.referral_codes.length])).toEqual([
      [ann.advocateId, 'active', 2],
      [bob.advocateId, 'active', 1],
      [cat.advocateId, 'deactivated', 1],
      [created.body.data.advocate_id, 'active', 1],
    ]);
    for (const advocate of changed) expect(new Date(advocate.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(SINCE).getTime());
    // The status filter still applies on top.
    expect((await list(brand, `updated_since=${SINCE}&status=deactivated`)).body.data.map((advocate: { advocate_id: number }) => advocate.advocate_id)).toEqual([cat.advocateId]);
  });

  it('keeps the cursor paging (by advocate id) with updated_since', async () => {
    const { brand, ann, bob, cat } = await quietBrand();
    await t.db('advocates').where({ brand_id: brand.brandId }).update({ updated_at: t.db.fn.now() });
    const seen: number[] = [];
    let cursor: number | null = null;
    let pages = 0;
    do {
      const response = await list(brand, `updated_since=${SINCE}&limit=2${cursor === null ? '' : `&cursor=${cursor}`}`);
      seen.push(...response.body.data.map((advocate: { advocate_id: number }) => advocate.advocate_id));
      cursor = response.body.next_cursor;
      pages += 1;
    } while (cursor !== null);
    expect([seen, pages]).toEqual([[ann.advocateId, bob.advocateId, cat.advocateId], 2]);
  });

  it('answers 400 naming updated_since for a value that is not an ISO timestamp with a time zone, and 401 without a key', async () => {
    const brand = await givenBrand(t.db, { plan: 'premier' });
    for (const bad of ['yesterday', '2026-13-01T00:00:00Z', '2026-06-01T00:00:00', '']) {
      const response = await list(brand, `updated_since=${encodeURIComponent(bad)}`);
      expect([response.status, response.body.error]).toEqual([400, expect.stringMatching(/^updated_since/)]);
    }
    expect((await list(brand, 'updated_since=2026-06-01T12:00:00%2B02:00')).status).toBe(200);
    expect((await t.http.get(`/api/v1/advocates?updated_since=${SINCE}`)).status).toBe(401);
  });

  it('is in the OpenAPI document', async () => {
    const document = (await t.http.get('/api/v1/openapi.json')).body;
    const parameters = document.paths['/api/v1/advocates'].get.parameters as Array<{ name: string; in: string; schema: { format?: string } }>;
    expect(parameters).toContainEqual(expect.objectContaining({ name: 'updated_since', in: 'query' }));
  });
});

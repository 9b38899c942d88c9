import { revokeApiKey } from '../../core/brands/api-keys';
import { updateBrand } from '../../core/brands/brand';
import { givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';

let cached: TestApp;
let shortLived: TestApp;
beforeAll(async () => {
  cached = await startTestApp({ apiKeyCacheSeconds: 60 });
  shortLived = await startTestApp({ apiKeyCacheSeconds: 1 }, cached.db);
});

// No referral in it: an authenticated request answers 200 `attributed: false`.
const conversion = () => ({ email: 'a@example.com', order_id: uniqueOrderId(), order_value: 10 });

describe('API key cache (API_KEY_CACHE_SECONDS)', () => {
  it('refuses a key revoked through this process at once, even inside the cache TTL', async () => {
    const brand = await givenBrand(cached.db);
    expect((await cached.http.post('/api/v1/track/conversion').set(brand.headers).send(conversion())).status).toBe(200);
    await revokeApiKey(cached.db, brand.brandId, brand.keyId);
    expect((await cached.http.post('/api/v1/track/conversion').set(brand.headers).send(conversion())).status).toBe(401);
  });

  it('refuses a brand uninstalled through this process at once, even inside the cache TTL', async () => {
    const brand = await givenBrand(cached.db);
    expect((await cached.http.post('/api/v1/track/conversion').set(brand.headers).send(conversion())).status).toBe(200);
    await updateBrand(cached.db, brand.brandId, { status: 'uninstalled' });
    expect((await cached.http.post('/api/v1/track/conversion').set(brand.headers).send(conversion())).status).toBe(403);
  });

  it('still refuses a cached key sent with another brand ID with 403', async () => {
    const mine = await givenBrand(cached.db);
    const theirs = await givenBrand(cached.db);
    expect((await cached.http.post('/api/v1/track/conversion').set(mine.headers).send(conversion())).status).toBe(200);
    const response = await cached.http.post('/api/v1/track/conversion').set({ ...mine.headers, 'X-Brand-ID': theirs.brandId }).send(conversion());
    expect(response.status).toBe(403);
  });

  it('honours a revocation made by another process once the TTL has passed', async () => {
    const brand = await givenBrand(shortLived.db);
    expect((await shortLived.http.post('/api/v1/track/conversion').set(brand.headers).send(conversion())).status).toBe(200);
    // Another instance revokes: this process is not told, so its cache answers until it expires.
    await shortLived.db('api_keys').where({ brand_id: brand.brandId, key_id: brand.keyId }).update({ revoked_at: shortLived.db.fn.now() });
    expect((await shortLived.http.post('/api/v1/track/conversion').set(brand.headers).send(conversion())).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await shortLived.http.post('/api/v1/track/conversion').set(brand.headers).send(conversion())).status).toBe(401);
  });
});

import { findKeyOwner, isPublishableKey } from '../../core/brands/api-keys';
import type { Brand } from '../../core/brands/brand';
import { findBrand } from '../../core/brands/brand';
import { assertBrandActive } from '../../core/brands/brand-status';
import { hashApiKey } from '../../core/brands/key-encryption';
import type { Ctx, Middleware } from '../app-context';
import { HttpError } from '../http-error';
import { cacheGeneration, cachedBrandOfKey, rememberBrandOfKey } from './api-key-cache';

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * X-API-Key + X-Brand-ID. Missing headers, a malformed brand ID, an unknown or revoked key → 401;
 * a valid key of another brand → 403. A valid key's brand is cached (api-key-cache.ts).
 */
export const authenticateApiKey: Middleware = async (ctx, next) => {
  const apiKey = ctx.get('x-api-key');
  const brandId = ctx.get('x-brand-id');
  if (!apiKey) throw new HttpError(401, 'X-API-Key header is required');
  if (!brandId) throw new HttpError(401, 'X-Brand-ID header is required');
  if (!UUID_PATTERN.test(brandId)) throw new HttpError(401, 'X-Brand-ID is not a valid brand ID');
  const publishable = isPublishableKey(apiKey);
  if (publishable && !ctx.state.acceptsPublishableKey) {
    throw new HttpError(403, `X-API-Key is a publishable key (pk_…): it only records visits (POST /api/v1/track/visit) and lets shoppers join (POST /api/v1/advocates/join); ${ctx.method} ${ctx.path} needs the brand's secret key (rk_…)`, {}, 'key_type_refused');
  }
  const { db, config } = ctx.app.context.deps;
  const keyHash = hashApiKey(apiKey);
  const cacheSeconds = config.apiKeyCacheSeconds ?? 0;
  const cached = cacheSeconds > 0 ? cachedBrandOfKey(keyHash) : undefined;
  if (cached) {
    if (cached.brand.brand_id !== brandId.toLowerCase()) throw new HttpError(403, 'X-Brand-ID does not match the API key');
    if (publishable) assertAllowedOrigin(ctx, cached.brand);
    ctx.state.brand = cached.brand;
    ctx.state.apiKeyId = cached.keyId;
    ctx.state.apiKeyKind = publishable ? 'publishable' : 'secret';
    return next();
  }
  const generation = cacheGeneration();
  const owner = await findKeyOwner(db, apiKey);
  if (!owner || owner.revoked) throw new HttpError(401, 'invalid or revoked API key');
  if (owner.brand_id !== brandId.toLowerCase()) throw new HttpError(403, 'X-Brand-ID does not match the API key');
  const brand = await findBrand(db, owner.brand_id);
  if (!brand) throw new HttpError(401, 'invalid or revoked API key');
  assertBrandActive(brand);
  rememberBrandOfKey(keyHash, { brand, keyId: owner.key_id }, cacheSeconds, generation);
  if (publishable) assertAllowedOrigin(ctx, brand);
  ctx.state.brand = brand;
  ctx.state.apiKeyId = owner.key_id;
  ctx.state.apiKeyKind = publishable ? 'publishable' : 'secret';
  return next();
};

/**
 * A publishable key sent by a browser (it says its page's Origin) works only from the brand's own
 * storefront origins (allowed_origins): another site's page cannot record visits or joins in its name.
 * Without an Origin (a server, a script) the key is what it is: public, and limited to its two routes.
 */
function assertAllowedOrigin(ctx: Ctx, brand: Brand): void {
  const origin = ctx.get('Origin');
  if (origin && !brand.allowed_origins.includes(origin)) {
    throw new HttpError(403, `Origin ${origin} is not one of the brand's storefront origins (allowed_origins): add it in the dashboard's Settings, or PATCH /api/v1/brand`, {}, 'forbidden');
  }
}

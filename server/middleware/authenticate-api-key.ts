import { findKeyOwner } from '../../core/brands/api-keys';
import { findBrand } from '../../core/brands/brand';
import { assertBrandActive } from '../../core/brands/brand-status';
import { hashApiKey } from '../../core/brands/key-encryption';
import type { Middleware } from '../app-context';
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
  const { db, config } = ctx.app.context.deps;
  const keyHash = hashApiKey(apiKey);
  const cacheSeconds = config.apiKeyCacheSeconds ?? 0;
  const cached = cacheSeconds > 0 ? cachedBrandOfKey(keyHash) : undefined;
  if (cached) {
    if (cached.brand.brand_id !== brandId.toLowerCase()) throw new HttpError(403, 'X-Brand-ID does not match the API key');
    ctx.state.brand = cached.brand;
    ctx.state.apiKeyId = cached.keyId;
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
  ctx.state.brand = brand;
  ctx.state.apiKeyId = owner.key_id;
  return next();
};

import type { Brand } from '../../core/brands/brand';
import { onBrandChanged } from '../../core/brands/brand-changes';

/**
 * The brand an API key authenticated, remembered for a few seconds (API_KEY_CACHE_SECONDS) so a
 * busy integration does not pay two look-ups per request. Only valid keys of active brands are
 * kept; a revocation or brand change made through this process (core's brandChanged) forgets
 * them at once, one made by another process is seen within the TTL.
 */
interface CachedKey {
  brand: Brand;
  expiresAt: number;
}

// A bound on memory: the cache holds live integrations, a handful per brand.
const MAX_ENTRIES = 10_000;
const byKeyHash = new Map<string, CachedKey>();

export function cachedBrandOfKey(keyHash: string, now = Date.now()): Brand | undefined {
  const entry = byKeyHash.get(keyHash);
  if (!entry) return undefined;
  if (entry.expiresAt > now) return entry.brand;
  byKeyHash.delete(keyHash);
  return undefined;
}

export function rememberBrandOfKey(keyHash: string, brand: Brand, ttlSeconds: number, now = Date.now()): void {
  if (ttlSeconds <= 0) return;
  if (byKeyHash.size >= MAX_ENTRIES) byKeyHash.clear();
  byKeyHash.set(keyHash, { brand, expiresAt: now + ttlSeconds * 1000 });
}

/** Forgets every cached key of a brand: after a key is revoked or the brand changed here. */
export function forgetBrandKeys(brandId: string): void {
  for (const [keyHash, entry] of byKeyHash) {
    if (entry.brand.brand_id === brandId) byKeyHash.delete(keyHash);
  }
}

onBrandChanged(forgetBrandKeys);

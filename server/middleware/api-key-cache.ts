import type { Brand } from '../../core/brands/brand';
import { onBrandChanged } from '../../core/brands/brand-changes';

/**
 * The brand an API key authenticated, remembered for API_KEY_CACHE_SECONDS so a busy integration
 * does not pay two look-ups per request. Only valid keys of active brands are kept. A revocation
 * or brand change is forgotten at once here (core's brandChanged) and, while this process hears
 * the database's notifications (server/cache-invalidation.ts), within a moment of its commit
 * anywhere; while it does not, entries live at most UNHEARD_TTL_SECONDS.
 */
interface CachedKey {
  brand: Brand;
  keyId: string;
  expiresAt: number;
}

/** A change nobody tells us about is still honoured within this long. */
export const UNHEARD_TTL_SECONDS = 1;

// A bound on memory: the cache holds live integrations, a handful per brand.
const MAX_ENTRIES = 10_000;
const byKeyHash = new Map<string, CachedKey>();
let hearingChanges = false;
// Bumped by every invalidation, so a look-up that raced one is not remembered with stale data.
let generation = 0;

export function cachedBrandOfKey(keyHash: string, now = Date.now()): { brand: Brand; keyId: string } | undefined {
  const entry = byKeyHash.get(keyHash);
  if (!entry) return undefined;
  if (entry.expiresAt > now) return { brand: entry.brand, keyId: entry.keyId };
  byKeyHash.delete(keyHash);
  return undefined;
}

/** Taken before a look-up and handed to rememberBrandOfKey. */
export function cacheGeneration(): number {
  return generation;
}

export function rememberBrandOfKey(keyHash: string, { brand, keyId }: { brand: Brand; keyId: string }, ttlSeconds: number, lookedUpAt: number, now = Date.now()): void {
  const ttl = hearingChanges ? ttlSeconds : Math.min(ttlSeconds, UNHEARD_TTL_SECONDS);
  if (ttl <= 0 || lookedUpAt !== generation) return;
  if (byKeyHash.size >= MAX_ENTRIES) byKeyHash.clear();
  byKeyHash.set(keyHash, { brand, keyId, expiresAt: now + ttl * 1000 });
}

/** Forgets every cached key of a brand: after a key is revoked or the brand changed. */
export function forgetBrandKeys(brandId: string): void {
  generation += 1;
  for (const [keyHash, entry] of byKeyHash) {
    if (entry.brand.brand_id === brandId) byKeyHash.delete(keyHash);
  }
}

/**
 * Whether every change reaches this process as it commits (LISTEN is up, or the embedded database
 * has no other process). Either way round, what is cached was kept under the other rule: drop it.
 */
export function setHearingChanges(hearing: boolean): void {
  hearingChanges = hearing;
  generation += 1;
  byKeyHash.clear();
}

onBrandChanged(forgetBrandKeys);

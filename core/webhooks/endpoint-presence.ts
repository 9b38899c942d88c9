import { onBrandChanged } from '../brands/brand-changes';
import type { Executor } from '../db/transaction';

/**
 * Whether a brand has an active webhook endpoint, remembered per process so a brand without one
 * pays no round trip per event. Every endpoint change calls brandChanged, which forgets the entry
 * here at once and, through NOTIFY (server/cache-invalidation.ts), in every other process; the
 * short TTL bounds what a missed notification can cost.
 */
const TTL_MS = 5_000;
const known = new Map<string, { has: boolean; until: number }>();
// Bumped by every invalidation, so a look-up that raced one is not remembered.
let generation = 0;

export async function brandHasEndpoints(db: Executor, brandId: string, now = Date.now()): Promise<boolean> {
  const cached = known.get(brandId);
  if (cached && cached.until > now) return cached.has;
  const lookedUpAt = generation;
  const row = await db('webhook_endpoints').where({ brand_id: brandId, status: 'active' }).first(db.raw('1 AS one'));
  const has = row !== undefined;
  if (lookedUpAt === generation) known.set(brandId, { has, until: now + TTL_MS });
  return has;
}

onBrandChanged((brandId) => {
  generation += 1;
  known.delete(brandId);
});

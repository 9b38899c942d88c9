import type { Executor } from '../db/transaction';

/**
 * Tells whoever caches a brand (the API-key cache) that its keys or settings changed: listeners
 * in this process at once, every other process through PostgreSQL's NOTIFY, which is delivered
 * only when the change's transaction commits (server/cache-invalidation.ts listens).
 */
type BrandChangeListener = (brandId: string) => void;

/** The NOTIFY channel; its payload is the brand id. */
export const BRAND_CHANGED_CHANNEL = 'referrals_brand_changed';

const listeners = new Set<BrandChangeListener>();

export function onBrandChanged(listener: BrandChangeListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** In-process listeners only: what a NOTIFY heard from the database calls. */
export function announceBrandChanged(brandId: string): void {
  for (const listener of listeners) listener(brandId);
}

export async function brandChanged(db: Executor, brandId: string): Promise<void> {
  announceBrandChanged(brandId);
  await db.raw('select pg_notify(?, ?)', [BRAND_CHANGED_CHANNEL, brandId]);
}

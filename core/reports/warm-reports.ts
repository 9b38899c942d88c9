import type { Knex } from 'knex';
import { storedDays } from './overview-report';
import { lastDays } from './period';
import { storedProducts } from './product-revenue';
import { ensureStored, splitAtCutoff } from './report-days';

/** The longest preset period: signing in stores its closed days, so the presets open at once. */
const WARM_DAYS = 90;

/**
 * Computes and stores the closed days of the last 90 days (overview and products) that are not
 * stored yet. Run after a sign-in, without making the merchant wait for it; a page that needs a
 * day first computes it itself.
 */
export async function warmReports(db: Knex, brandId: string): Promise<void> {
  const { closed } = splitAtCutoff(lastDays(WARM_DAYS));
  if (!closed) return;
  await ensureStored(db, brandId, closed, storedDays);
  await ensureStored(db, brandId, closed, storedProducts);
}

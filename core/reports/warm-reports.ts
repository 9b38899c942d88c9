import type { Knex } from 'knex';
import { storedFigures } from './overview-report';
import { lastDays } from './period';
import { storedProducts } from './product-revenue';
import { ensureStored, splitPeriod } from './report-days';

/**
 * The longest preset period first (the presets open at once), then the longest custom period (366
 * days), so any custom period inside the last year is read from stored days too.
 */
const WARM_PERIODS = [90, 366];

/**
 * Computes and stores the closed days (and today's closed hours) of the last 90, then 366, days
 * (overview and products) that are not stored yet. Run after a sign-in, without making the
 * merchant wait for it; a page that needs a day first computes it itself.
 */
export async function warmReports(db: Knex, brandId: string): Promise<void> {
  for (const length of WARM_PERIODS) {
    const { days, hours } = splitPeriod(lastDays(length));
    for (const report of [storedFigures, storedProducts]) {
      if (days) await ensureStored(db, brandId, 'day', days, report);
      if (hours) await ensureStored(db, brandId, 'hour', hours, report);
    }
  }
}

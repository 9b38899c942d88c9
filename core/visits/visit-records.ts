import type { Executor } from '../db/transaction';
import { VISITOR_ID_PATTERN } from './visit-input';

/** The code a visitor arrived with most recently, inside the attribution window. */
export async function lastVisitCode(
  db: Executor,
  brandId: string,
  visitorId: string,
  windowDays: number,
): Promise<{ code_normalized: string; advocate_id: number } | null> {
  if (!VISITOR_ID_PATTERN.test(visitorId)) return null;
  const row = await db('visits')
    .select('code_normalized', 'advocate_id')
    .where({ brand_id: brandId, visitor_id: visitorId })
    .andWhere('created_at', '>=', db.raw(`now() - make_interval(days => ?)`, [windowDays]))
    .orderBy('created_at', 'desc')
    .first();
  return row ? { code_normalized: row.code_normalized, advocate_id: Number(row.advocate_id) } : null;
}

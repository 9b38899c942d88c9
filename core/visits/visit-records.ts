import { type ReferralCodeOwner, codeOwners, toCodeOwner } from '../advocates/advocates';
import type { Executor } from '../db/transaction';
import { VISITOR_ID_PATTERN } from './visit-input';

/**
 * Who owns the code a visitor arrived with most recently, inside the attribution window: the visit
 * and its code's owner in one query (null when there is no such visit, or its code is gone).
 */
export async function lastVisitReferrer(
  db: Executor,
  brandId: string,
  visitorId: string,
  windowDays: number,
): Promise<ReferralCodeOwner | null> {
  if (!VISITOR_ID_PATTERN.test(visitorId)) return null;
  const lastVisit = db('visits')
    .select('code_normalized')
    .where({ brand_id: brandId, visitor_id: visitorId })
    .andWhere('created_at', '>=', db.raw(`now() - make_interval(days => ?)`, [windowDays]))
    .orderBy('created_at', 'desc')
    .limit(1)
    .as('v');
  const row = await codeOwners(db).join(lastVisit, 'v.code_normalized', 'c.code_normalized').where({ 'c.brand_id': brandId }).first();
  return row ? toCodeOwner(row) : null;
}

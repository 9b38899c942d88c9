import type { MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { runPromotionSync } from '../../../../lib/run-promotion-sync';

/**
 * POST /admin/referral-promotions/sync (an admin route, authenticated as Medusa's admin API): runs
 * the promotion sync now instead of at the job's next minute, after a change of the friend offer
 * for instance. 200 with what it did; 502 when the referral service could not be read.
 */
export async function POST(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  try {
    res.json({ referral_promotion_sync: await runPromotionSync(req.scope) });
  } catch (error) {
    res.status(502).json({ type: 'unexpected_state', message: `referral promotion sync failed: ${(error as Error).message}` });
  }
}

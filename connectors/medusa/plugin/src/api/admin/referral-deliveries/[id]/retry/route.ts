import type { MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { retryDelivery } from '../../../../../lib/retry-delivery';
import { REFERRALS_MODULE } from '../../../../../modules/referrals';
import type ReferralsModuleService from '../../../../../modules/referrals/service';

/**
 * POST /admin/referral-deliveries/:id/retry (an admin route: Medusa authenticates it as its own
 * admin API, by session, bearer token or secret API key). After the merchant fixed what the service
 * refused (the brand's currency, the key), a rejected delivery, or a pending one waiting out its
 * backoff, goes back to pending with its attempts reset: the scheduled job sends it within 10 s.
 * 200 with the delivery; 404 an unknown id; 409 one already delivered.
 */
export async function POST(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  const id = String(req.params.id ?? '');
  const referrals = req.scope.resolve<ReferralsModuleService>(REFERRALS_MODULE);
  const result = await retryDelivery(referrals, id);
  if (result.outcome === 'not_found') {
    res.status(404).json({ type: 'not_found', message: `referral delivery ${id} not found` });
    return;
  }
  if (result.outcome === 'already_delivered') {
    res.status(409).json({ type: 'conflict', message: `referral delivery ${id} was already delivered; there is nothing to retry`, referral_delivery: result.delivery });
    return;
  }
  res.json({ referral_delivery: result.delivery });
}

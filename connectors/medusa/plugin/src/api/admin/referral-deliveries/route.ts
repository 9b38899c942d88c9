import type { MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { z } from '@medusajs/framework/zod';
import { REFERRALS_MODULE } from '../../../modules/referrals';
import type ReferralsModuleService from '../../../modules/referrals/service';

const querySchema = z.object({ status: z.enum(['pending', 'delivered', 'rejected']).optional() });

/**
 * GET /admin/referral-deliveries[?status=pending|rejected|delivered]: what the referral service has
 * not accepted yet (default: pending and rejected), newest first, with the last error — for the
 * merchant to see that the service is down, or what it refused.
 */
export async function GET(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  const query = querySchema.safeParse(req.query);
  if (!query.success) {
    res.status(400).json({ type: 'invalid_data', message: 'status must be one of pending, delivered, rejected' });
    return;
  }
  const asked = query.data.status;
  const referrals = req.scope.resolve<ReferralsModuleService>(REFERRALS_MODULE);
  const [deliveries, count] = await referrals.listAndCountReferralDeliveries(
    { status: asked ? [asked] : ['pending', 'rejected'] },
    {
      select: ['id', 'event_name', 'order_id', 'status', 'attempts', 'next_attempt_at', 'last_error', 'settled_at', 'created_at'],
      order: { created_at: 'DESC' },
      take: 100,
    },
  );
  res.json({ referral_deliveries: deliveries, count });
}

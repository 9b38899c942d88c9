import type { AuthenticatedMedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import type { Logger } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { runPromotionSync } from '../../../../lib/run-promotion-sync';
import { joinReferralProgram } from '../../../../lib/storefront-referrals';
import { REFERRALS_MODULE } from '../../../../modules/referrals';
import type ReferralsModuleService from '../../../../modules/referrals/service';

/**
 * POST /store/referrals/join with `{consent: true}` (a store route: the publishable API key, and the
 * logged-in customer's session or bearer token, src/api/middlewares.ts; 401 without one): the
 * customer joins the referral program as themselves. 201 `{joined: true, referral_code, share_link}`,
 * 200 with `joined: false` and the same code when they had joined; 400 without consent.
 */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const referrals = req.scope.resolve<ReferralsModuleService>(REFERRALS_MODULE);
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY);
  const answer = await joinReferralProgram({ query, options: referrals.options }, req.auth_context.actor_id, req.body);
  if (answer.status === 201) {
    // Their code becomes a Medusa promotion now rather than at the sync job's next minute.
    const logger = req.scope.resolve<Logger>(ContainerRegistrationKeys.LOGGER);
    Promise.resolve()
      .then(() => runPromotionSync(req.scope))
      .catch((error: Error) => logger.warn(`referral plugin: promotion sync after a join failed: ${error.message}`));
  }
  res.status(answer.status).json(answer.body);
}

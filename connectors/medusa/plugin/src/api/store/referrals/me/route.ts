import type { AuthenticatedMedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { myReferrals } from '../../../../lib/storefront-referrals';
import { REFERRALS_MODULE } from '../../../../modules/referrals';
import type ReferralsModuleService from '../../../../modules/referrals/service';

/**
 * GET /store/referrals/me (a store route: the publishable API key, and the logged-in customer's
 * session or bearer token, src/api/middlewares.ts; 401 without one): the customer's own referral
 * code, share link, friends referred and rewards by status. 404 when they have not joined.
 */
export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const referrals = req.scope.resolve<ReferralsModuleService>(REFERRALS_MODULE);
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY);
  const answer = await myReferrals({ query, options: referrals.options }, req.auth_context.actor_id);
  res.status(answer.status).json(answer.body);
}

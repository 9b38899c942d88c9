import type { Logger, MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { type DeliveryStore, sendDueDeliveries } from '../lib/delivery-store';
import { REFERRALS_MODULE } from '../modules/referrals';

/** Re-sends order snapshots the service has not accepted yet (down, or Medusa restarted meanwhile). */
export default async function sendPendingReferralDeliveries(container: MedusaContainer): Promise<void> {
  const store = container.resolve<DeliveryStore>(REFERRALS_MODULE);
  await sendDueDeliveries(store, container.resolve<Logger>(ContainerRegistrationKeys.LOGGER));
}

// Every 10 s: a due delivery waits at most that long past its backoff; an idle run is one indexed query.
export const config = { name: 'referrals-send-pending-deliveries', schedule: { interval: 10_000 } };

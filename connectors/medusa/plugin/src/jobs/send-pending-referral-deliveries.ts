import type { Logger, MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { currencyGateOf } from '../lib/currency-check';
import { type DeliveryStore, sendDueDeliveries } from '../lib/delivery-store';
import type { QueryGraph } from '../lib/order-graph';
import { REFERRALS_MODULE } from '../modules/referrals';

/**
 * Re-sends order snapshots the service has not accepted yet (down, or Medusa restarted meanwhile),
 * and none while the store's default currency differs from the brand's (currency-check.ts). Its
 * first run, seconds after start-up, is where a currency mismatch is found and logged.
 */
export default async function sendPendingReferralDeliveries(container: MedusaContainer): Promise<void> {
  const store = container.resolve<DeliveryStore>(REFERRALS_MODULE);
  const logger = container.resolve<Logger>(ContainerRegistrationKeys.LOGGER);
  const query = container.resolve<QueryGraph>(ContainerRegistrationKeys.QUERY);
  await sendDueDeliveries(store, logger, { gate: () => currencyGateOf(store).allows(query, logger) });
}

// Every 10 s: a due delivery waits at most that long past its backoff; an idle run is two small queries (the store's currencies, the due deliveries).
export const config = { name: 'referrals-send-pending-deliveries', schedule: { interval: 10_000 } };

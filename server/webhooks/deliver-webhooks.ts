import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { decryptSecret } from '../../core/brands/key-encryption';
import { startPollingWorker, type PollingWorker } from '../../core/jobs/polling-worker';
import { type DeliveryStatus, type DueDelivery, type WebhookDeliveryView, createTestDelivery, getWebhookDelivery, recordAttempt, takeDueDeliveries } from '../../core/webhooks/deliveries';
import { sendWebhook } from './send-webhook';
import type { WebhookSettings } from './webhook-settings';

export interface DeliveryDeps {
  db: Knex;
  encryptionSecret: string;
  settings: WebhookSettings;
  logger?: Logger;
}

/** A taken delivery is leased this long beyond its attempt's timeout before another worker may take it again. */
const LEASE_MARGIN_SECONDS = 30;
/** Deliveries one pass takes (and sends at once). */
const PASS_SIZE = 20;

function leaseSeconds(settings: WebhookSettings): number {
  return Math.ceil(settings.timeoutMs / 1000) + LEASE_MARGIN_SECONDS;
}

/** Sends one taken delivery and records how it went. */
async function attempt(deps: DeliveryDeps, delivery: DueDelivery): Promise<DeliveryStatus> {
  const { settings } = deps;
  const outcome = await sendWebhook(
    {
      url: delivery.url,
      secret: decryptSecret(delivery.secret_encrypted, deps.encryptionSecret),
      eventId: delivery.event_id,
      body: JSON.stringify(delivery.payload),
    },
    { timeoutMs: settings.timeoutMs, allowPrivate: settings.allowPrivate },
  );
  const recorded = await recordAttempt(deps.db, delivery, outcome, settings);
  if (!outcome.ok) {
    deps.logger?.warn({ delivery_id: delivery.delivery_id, endpoint_id: delivery.endpoint_id, error: outcome.error, status: recorded.status }, 'webhook attempt failed');
  }
  if (recorded.endpointDisabled) deps.logger?.warn({ brand_id: delivery.brand_id, endpoint_id: delivery.endpoint_id }, 'webhook endpoint disabled');
  return recorded.status;
}

/**
 * One pass: takes the due deliveries (FOR UPDATE SKIP LOCKED) and sends them at once; `brandId`
 * limits it to one brand's (tests, an operator's one-off run). Returns how many it took.
 */
export async function deliverDueWebhooks(deps: DeliveryDeps, brandId?: string): Promise<number> {
  const due = await takeDueDeliveries(deps.db, { limit: PASS_SIZE, leaseSeconds: leaseSeconds(deps.settings), brandId });
  await Promise.all(due.map((delivery) => attempt(deps, delivery)));
  return due.length;
}

/** The delivery worker of a server process; several processes may run it on one database. */
export function startWebhookWorker(deps: DeliveryDeps & { logger: Logger }): PollingWorker {
  return startPollingWorker({
    pass: () => deliverDueWebhooks(deps),
    intervalMs: deps.settings.workerIntervalMs,
    onError: (error) => deps.logger.error({ err: error }, 'webhook delivery pass failed'),
  });
}

/** `webhook test`: sends a webhook.test event to the endpoint now, once, and returns the delivery as it ended; the audit log names `actor`. */
export async function testWebhookEndpoint(deps: DeliveryDeps, brandId: string, endpointId: string, actor: string): Promise<WebhookDeliveryView> {
  const delivery = await createTestDelivery(deps.db, brandId, endpointId, leaseSeconds(deps.settings), actor);
  await attempt(deps, delivery);
  return getWebhookDelivery(deps.db, brandId, Number(delivery.delivery_id));
}

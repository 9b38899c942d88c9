import { createHmac } from 'node:crypto';
import type { Logger } from '@medusajs/framework/types';
import type { ReferralPluginOptions } from './plugin-options';

export type DeliveryLogger = Pick<Logger, 'info' | 'warn' | 'error'>;
type DeliveryPolicy = Pick<ReferralPluginOptions, 'serviceUrl' | 'brandId' | 'apiKey' | 'retryBaseDelayMs' | 'retryMaxDelayMs' | 'requestTimeoutMs'>;

/** accepted: the service has it; rejected: it refused it for good (4xx); retrying: it will be sent again later. */
export type DeliveryResult = 'accepted' | 'rejected' | 'retrying';
type AttemptResult = 'accepted' | 'rejected' | 'retry';

const WEBHOOK_PATH = '/medusa/webhooks';

// Statuses that say "try again later"; any other 4xx will not change by resending the same body.
const TRANSIENT_CLIENT_STATUSES = new Set([408, 425, 429]);

const retrying = new Set<Promise<void>>();

/** Hex HMAC-SHA256 of the exact body bytes, keyed with the brand's API key. */
export function signBody(apiKey: string, body: string): string {
  return createHmac('sha256', apiKey).update(body).digest('hex');
}

/**
 * Sends one signed snapshot. The first attempt is awaited; after a network error, a timeout or a
 * 5xx/408/425/429 answer the same body is resent in the background with exponential backoff until
 * it is accepted (Medusa's event bus does not retry a failed subscriber).
 */
export async function deliverSnapshot(body: string, policy: DeliveryPolicy, logger: DeliveryLogger): Promise<DeliveryResult> {
  const first = await attempt(body, policy, logger, 1);
  if (first !== 'retry') return first;
  const background = retryUntilSettled(body, policy, logger).finally(() => retrying.delete(background));
  retrying.add(background);
  return 'retrying';
}

/** Resolves once every delivery being retried has been accepted or rejected (tests, graceful shutdown). */
export async function settleDeliveries(): Promise<void> {
  while (retrying.size > 0) await Promise.all([...retrying]);
}

/** Full backoff: base × 2^(n−1), capped, with jitter so many failed deliveries do not return in step. */
function retryDelayMs(retry: number, policy: Pick<DeliveryPolicy, 'retryBaseDelayMs' | 'retryMaxDelayMs'>): number {
  const ceiling = Math.min(policy.retryMaxDelayMs, policy.retryBaseDelayMs * 2 ** Math.min(retry - 1, 30));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

async function retryUntilSettled(body: string, policy: DeliveryPolicy, logger: DeliveryLogger): Promise<void> {
  for (let retry = 1; ; retry += 1) {
    await sleep(retryDelayMs(retry, policy));
    if ((await attempt(body, policy, logger, retry + 1)) !== 'retry') return;
  }
}

async function attempt(body: string, policy: DeliveryPolicy, logger: DeliveryLogger, attemptNo: number): Promise<AttemptResult> {
  const url = `${policy.serviceUrl}${WEBHOOK_PATH}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-Brand-ID': policy.brandId,
        'X-AL-Signature': signBody(policy.apiKey, body),
      },
      body,
      signal: AbortSignal.timeout(policy.requestTimeoutMs),
    });
  } catch (error) {
    logger.warn(`referral service unreachable (attempt ${attemptNo}, ${url}): ${(error as Error).message}; will retry`);
    return 'retry';
  }
  const answer = await response.text().catch(() => '');
  if (response.ok) return 'accepted';
  if (response.status >= 400 && response.status < 500 && !TRANSIENT_CLIENT_STATUSES.has(response.status)) {
    logger.error(`referral service refused an order snapshot (${response.status}): ${answer.slice(0, 500)}`);
    return 'rejected';
  }
  logger.warn(`referral service answered ${response.status} (attempt ${attemptNo}); will retry`);
  return 'retry';
}

function sleep(ms: number): Promise<void> {
  // unref: a pending retry must not keep a finished process (e.g. `medusa exec`) alive.
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

import { createHmac } from 'node:crypto';
import type { Logger } from '@medusajs/framework/types';
import type { ReferralPluginOptions } from './plugin-options';

export type DeliveryLogger = Pick<Logger, 'info' | 'warn' | 'error'>;
export type DeliveryPolicy = Pick<ReferralPluginOptions, 'serviceUrl' | 'brandId' | 'apiKey' | 'retryBaseDelayMs' | 'retryMaxDelayMs' | 'requestTimeoutMs'>;

/** accepted: the service has it; rejected: it refused it for good (4xx); retry: send it again later. */
export type AttemptResult = { outcome: 'accepted' } | { outcome: 'rejected' | 'retry'; error: string };

const WEBHOOK_PATH = '/medusa/webhooks';

// Statuses that say "try again later"; any other 4xx will not change by resending the same body.
const TRANSIENT_CLIENT_STATUSES = new Set([408, 425, 429]);

/** Hex HMAC-SHA256 of the exact body bytes, keyed with the brand's API key. */
export function signBody(apiKey: string, body: string): string {
  return createHmac('sha256', apiKey).update(body).digest('hex');
}

/** Backoff before retry n (1-based): base × 2^(n−1), capped, with jitter so failed deliveries do not return in step. */
export function retryDelayMs(retry: number, policy: Pick<DeliveryPolicy, 'retryBaseDelayMs' | 'retryMaxDelayMs'>): number {
  const ceiling = Math.min(policy.retryMaxDelayMs, policy.retryBaseDelayMs * 2 ** Math.min(retry - 1, 30));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** One signed POST of a snapshot; a network error, a timeout, a 5xx or a 408/425/429 is worth a retry. */
export async function attemptDelivery(body: string, policy: DeliveryPolicy, logger: DeliveryLogger, attemptNo: number): Promise<AttemptResult> {
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
    const message = `referral service unreachable (attempt ${attemptNo}, ${url}): ${(error as Error).message}`;
    logger.warn(`${message}; will retry`);
    return { outcome: 'retry', error: message };
  }
  const answer = await response.text().catch(() => '');
  if (response.ok) return { outcome: 'accepted' };
  if (response.status >= 400 && response.status < 500 && !TRANSIENT_CLIENT_STATUSES.has(response.status)) {
    const message = `referral service refused an order snapshot (${response.status}): ${answer.slice(0, 500)}`;
    logger.error(message);
    return { outcome: 'rejected', error: message };
  }
  const message = `referral service answered ${response.status} (attempt ${attemptNo}): ${answer.slice(0, 200)}`;
  logger.warn(`${message}; will retry`);
  return { outcome: 'retry', error: message };
}

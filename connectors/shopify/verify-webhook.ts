import { createHmac } from 'node:crypto';
import { safeEqual } from '../../core/brands/key-encryption';

/** What Shopify sends as X-Shopify-Hmac-Sha256: base64(HMAC-SHA256(app secret, raw body)). */
export function webhookSignature(secret: string, rawBody: Buffer | string): string {
  return createHmac('sha256', secret).update(rawBody).digest('base64');
}

/** True when the header is the signature of these exact bytes under one of the candidate secrets. */
export function verifyWebhookHmac(rawBody: Buffer, header: string | undefined, secrets: string[]): boolean {
  if (!header) return false;
  const sent = header.trim();
  // Every candidate is compared (no early exit), each in constant time.
  return secrets.reduce((valid, secret) => safeEqual(webhookSignature(secret, rawBody), sent) || valid, false);
}

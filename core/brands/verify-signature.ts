import { createHmac, timingSafeEqual } from 'node:crypto';

/** Hex HMAC-SHA256 of the exact bytes, with `secret` as the key. */
export function hmacHex(secret: string, payload: Buffer | string): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

/**
 * True when `signatureHex` is the HMAC of one of the payloads under one of the secrets (every
 * active key of a brand is a candidate). Every comparison runs in constant time.
 */
export function signatureMatches(signatureHex: string, payloads: Array<Buffer | string>, secrets: string[]): boolean {
  const given = Buffer.from(signatureHex.trim().toLowerCase(), 'utf8');
  let matched = false;
  for (const secret of secrets) {
    for (const payload of payloads) {
      const expected = Buffer.from(hmacHex(secret, payload), 'utf8');
      if (expected.length === given.length && timingSafeEqual(expected, given)) matched = true;
    }
  }
  return matched;
}

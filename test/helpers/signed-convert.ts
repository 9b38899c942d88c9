import { createHmac } from 'node:crypto';

/** The documented scheme (hex HMAC-SHA256 keyed with an API key), written apart from the code it checks. */
export function hexHmacSha256(key: string, payload: string): string {
  return createHmac('sha256', key).update(payload, 'utf8').digest('hex');
}

export interface SignOptions {
  /** Sends X-AL-Timestamp with this unix-seconds value. */
  timestamp?: number;
  /** Signs `{timestamp}.{body}` instead of the body alone (needs timestamp). */
  signTimestamp?: boolean;
}

/** The headers a webhook source sends to /convert for exactly these body bytes. */
export function signedHeaders(brandId: string, apiKey: string, rawBody: string, options: SignOptions = {}): Record<string, string> {
  const { timestamp, signTimestamp = false } = options;
  const payload = signTimestamp ? `${timestamp}.${rawBody}` : rawBody;
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'X-Brand-ID': brandId,
    'X-AL-Signature': hexHmacSha256(apiKey, payload),
  };
  if (timestamp !== undefined) headers['X-AL-Timestamp'] = String(timestamp);
  return headers;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

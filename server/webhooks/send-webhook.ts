import dns from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { isPublicAddress, literalAddress } from '../../core/webhooks/address-policy';
import type { AttemptOutcome } from '../../core/webhooks/deliveries';

export interface OutgoingWebhook {
  url: string;
  /** The Standard Webhooks secret, `whsec_…`. */
  secret: string;
  /** The event id: the `webhook-id` header, the same on every attempt and replay. */
  eventId: string;
  body: string;
}

/** The address the connection goes to: resolved once, checked, then pinned (no second look-up to rebind). */
async function resolveAddress(hostname: string, allowPrivate: boolean): Promise<{ address: string; family: number }> {
  const literal = literalAddress(hostname);
  const addresses = literal ? [{ address: literal, family: literal.includes(':') ? 6 : 4 }] : await dns.lookup(hostname, { all: true, verbatim: true });
  if (addresses.length === 0) throw new Error(`${hostname} did not resolve`);
  const refused = allowPrivate ? undefined : addresses.find(({ address }) => !isPublicAddress(address));
  if (refused) throw new Error(`${hostname} resolves to ${refused.address}, a private, loopback or reserved address (WEBHOOK_ALLOW_PRIVATE is not true)`);
  return addresses[0]!;
}

/** `work`, or a rejection once `ms` have passed (a resolver that hangs counts against the attempt's time). */
async function within<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

function pinnedLookup(pinned: { address: string; family: number }): LookupFunction {
  return (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (error: null, addresses: Array<{ address: string; family: number }>) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
}

const KEEP_RESPONSE_CHARS = 200;

/**
 * One attempt: POST the body signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`). A 2xx answer within
 * `timeoutMs` is delivered; anything else (a 3xx — redirects are never followed —, 4xx, 5xx, a
 * timeout, a refused connection, an address that is not public) is a failed attempt.
 */
export async function sendWebhook(webhook: OutgoingWebhook, options: { timeoutMs: number; allowPrivate: boolean }): Promise<AttemptOutcome> {
  const deadline = Date.now() + options.timeoutMs;
  const timedOut = `timed out after ${options.timeoutMs} ms`;
  let url: URL;
  let pinned: { address: string; family: number };
  try {
    url = new URL(webhook.url);
    pinned = await within(resolveAddress(url.hostname, options.allowPrivate), options.timeoutMs, `${timedOut} (resolving ${url.hostname})`);
  } catch (error) {
    return { ok: false, status: null, error: (error as Error).message };
  }
  const timestamp = new Date();
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'referrals-webhooks/1',
    'webhook-id': webhook.eventId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': new Webhook(webhook.secret).sign(webhook.eventId, timestamp, webhook.body),
    'content-length': String(Buffer.byteLength(webhook.body)),
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = client.request(url, { method: 'POST', headers, lookup: pinnedLookup(pinned), agent: false }, (response) => {
      const status = response.statusCode ?? 0;
      let kept = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (kept.length < KEEP_RESPONSE_CHARS) kept += chunk.slice(0, KEEP_RESPONSE_CHARS - kept.length);
      });
      response.on('end', () => {
        if (status >= 200 && status < 300) return settle({ ok: true, status, error: null });
        const redirect = status >= 300 && status < 400 ? ` (redirects are not followed${response.headers.location ? `: ${response.headers.location}` : ''})` : '';
        settle({ ok: false, status, error: `HTTP ${status}${redirect}${kept ? `: ${kept}` : ''}` });
      });
      response.on('error', (error) => settle({ ok: false, status, error: error.message }));
    });
    const timer = setTimeout(() => {
      settle({ ok: false, status: null, error: timedOut });
      request.destroy();
    }, Math.max(0, deadline - Date.now()));
    request.on('error', (error) => settle({ ok: false, status: null, error: error.message }));
    request.end(webhook.body);
  });
}

import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { normalizeEmail } from '../advocates/normalize';

/**
 * The signed part of an unsubscribe link: which brand and address it is for, and an HMAC over both
 * with a key derived from the server's secret, so nobody can make the link of another address.
 */
export interface UnsubscribeSubject {
  brandId: string;
  email: string;
}

// Derived once per secret (a process has one): HKDF on every message was a tenth of the worker's time.
const keys = new Map<string, Buffer>();
function keyOf(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) keys.set(secret, (key = Buffer.from(hkdfSync('sha256', secret, 'referrals', 'mail-unsubscribe-v1', 32))));
  return key;
}

const signature = (secret: string, brandId: string, email: string) =>
  createHmac('sha256', keyOf(secret)).update(`${brandId}\n${normalizeEmail(email)}`).digest().subarray(0, 18).toString('base64url');

/** `<base64url of "brand\nemail">.<signature>`: opaque in a URL, readable only with the signature intact. */
export function unsubscribeToken(secret: string, subject: UnsubscribeSubject): string {
  const email = normalizeEmail(subject.email);
  const body = Buffer.from(`${subject.brandId}\n${email}`).toString('base64url');
  return `${body}.${signature(secret, subject.brandId, email)}`;
}

/** The subject of a token, or null when it is malformed or its signature is not ours. */
export function readUnsubscribeToken(secret: string, token: string): UnsubscribeSubject | null {
  const [body, given, ...rest] = token.split('.');
  if (!body || !given || rest.length > 0) return null;
  const [brandId, email, ...extra] = Buffer.from(body, 'base64url').toString('utf8').split('\n');
  if (!brandId || !email || extra.length > 0) return null;
  const expected = Buffer.from(signature(secret, brandId, email));
  const actual = Buffer.from(given);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null;
  return { brandId, email };
}

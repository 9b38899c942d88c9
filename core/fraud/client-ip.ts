import { isIP } from 'node:net';

const UNSPECIFIED = new Set(['0.0.0.0', '::']);

/**
 * An IP address as the fraud rules compare it, or null when it is none: an IPv4 address a
 * dual-stack socket reports as IPv4-mapped IPv6 (`::ffff:203.0.113.7`) is the plain IPv4 one, and
 * the unspecified address (Shopify's `0.0.0.0` placeholder) is no address.
 */
export function canonicalIp(value: string | null | undefined): string | null {
  if (!value) return null;
  const trimmed = value.trim().toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(trimmed);
  const ip = mapped ? mapped[1]! : trimmed;
  if (isIP(ip) === 0 || UNSPECIFIED.has(ip)) return null;
  return ip;
}

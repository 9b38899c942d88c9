import ipaddr from 'ipaddr.js';
import { Invalid } from '../errors';

/**
 * Where a webhook may be sent: only to public unicast addresses, unless the operator allows
 * private ones (WEBHOOK_ALLOW_PRIVATE=true, local development). ipaddr.js classifies: everything
 * it does not call `unicast` (private, loopback, link-local, unique-local, unspecified, multicast,
 * broadcast, carrier-grade NAT, reserved, and IPv6 forms that embed an IPv4 address) is refused;
 * an IPv4-mapped IPv6 address is judged as the IPv4 address it maps. IPv4-compatible addresses
 * (::/96, deprecated by RFC 4291, and another spelling of an IPv4 address such as ::127.0.0.1,
 * which ipaddr.js calls unicast) are refused too.
 */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

function canonicalIpv6(address: string): string | null {
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
}

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // IPv6 as the URL parser (and the connection) spells it: ipaddr.js reads `::8.8.8.8` as `::ffff:8.8.8.8`.
  const canonical = address.includes(':') ? canonicalIpv6(address) : address;
  if (canonical === null) return false; // a zone id (fe80::1%eth0): link-local anyway
  const parsed = ipaddr.parse(canonical);
  if (parsed.kind() === 'ipv6' && parsed.match(IPV4_COMPATIBLE)) return false;
  return ipaddr.process(canonical).range() === 'unicast';
}

/** The host of a URL as an IP address when it is a literal one (IPv6 without its brackets), else null. */
export function literalAddress(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) && (bare.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(bare)) ? bare : null;
}

/**
 * A webhook URL as merchants may register it: http(s), no credentials, and, when its host is a
 * literal IP address, a public one (a host name is checked after DNS resolution, at delivery).
 */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Invalid(`url must be an absolute http or https URL (got "${raw.slice(0, 200)}")`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Invalid(`url must use http or https, not ${url.protocol.replace(/:$/, '')}`);
  if (url.username || url.password) throw new Invalid('url must not contain a user name or password');
  const address = literalAddress(url.hostname);
  if (address !== null && !allowPrivate && !isPublicAddress(address)) {
    throw new Invalid(`url points at a private, loopback or reserved address (${address}); set WEBHOOK_ALLOW_PRIVATE=true to allow it`);
  }
  return url;
}

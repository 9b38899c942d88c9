import { blacklist } from 'mailchecker';

/**
 * The person behind an address, for the self-referral rule: lower-cased, a `+tag` dropped (every
 * provider), and for Gmail (gmail.com, googlemail.com: one mailbox) the dots of the local part
 * dropped too, since Gmail ignores them. Other providers may treat dots as significant.
 */
export function emailIdentity(email: string): string {
  const address = email.trim().toLowerCase();
  const at = address.lastIndexOf('@');
  if (at <= 0) return address;
  let local = address.slice(0, at);
  let domain = address.slice(at + 1);
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  if (domain === 'googlemail.com') domain = 'gmail.com';
  if (domain === 'gmail.com') local = local.replace(/\./g, '');
  return `${local}@${domain}`;
}

/**
 * The disposable (throwaway) provider an address belongs to, or null: its domain or a parent
 * domain is on mailchecker's maintained list.
 */
export function disposableDomain(email: string): string | null {
  const address = email.trim().toLowerCase();
  const domain = address.slice(address.lastIndexOf('@') + 1);
  const listed = blacklist();
  for (let candidate = domain; candidate.includes('.'); candidate = candidate.slice(candidate.indexOf('.') + 1)) {
    if (listed.has(candidate)) return candidate;
  }
  return null;
}

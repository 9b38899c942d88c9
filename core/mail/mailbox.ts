/**
 * Whether an address can receive mail as written: a local part of the characters RFC 5322 allows
 * unquoted (no leading, trailing or doubled dot), a domain of labels with a top-level name of two
 * or more letters (international names allowed), at most 254 characters. Checked where an address
 * is taken (the API, the CLI), so a message is never written to one that cannot be delivered.
 */
const LOCAL = /^[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*$/u;
const DOMAIN = /^(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+\p{L}{2,63}$/u;

export function isMailbox(address: string): boolean {
  const value = address.trim();
  if (value.length > 254) return false;
  const at = value.lastIndexOf('@');
  if (at <= 0) return false;
  const local = value.slice(0, at);
  return local.length <= 64 && LOCAL.test(local) && DOMAIN.test(value.slice(at + 1));
}

import { Invalid } from '../errors';

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

/** How a refused address is told, wherever one is taken (the API's fields, the outbox). */
export const MAILBOX_RULE = 'must be an address that can receive mail, like friend@example.com';

/**
 * An address about to be written to the outbox, trimmed: anything but one deliverable address (a
 * header break, a list, a group) is refused, naming `email`, so it is never queued. The callers
 * checked it already; this keeps a new caller from queueing one.
 */
export function checkedRecipient(address: string): string {
  if (!isMailbox(address)) throw new Invalid(`email ${MAILBOX_RULE}`);
  return address.trim();
}

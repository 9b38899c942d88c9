import { Invalid } from '../../core/errors';

/**
 * A destructive form's confirmation, without JavaScript: the form carries a box the merchant ticks
 * ("Yes, revoke this key"), required by the browser and checked here too, so a click alone — or a
 * form posted without it — changes nothing (400 naming `confirm`).
 */
export function requireConfirmation(form: URLSearchParams, what: string): void {
  if (form.get('confirm') !== 'yes') throw new Invalid(`confirm: tick “${what}” to go ahead; nothing was changed`);
}

import type { Knex } from 'knex';
import { NotFound } from '../../core/errors';
import type { ConnectionSection } from '../../server/http';
import { discountStatus } from './discount-status';
import { shopStatus } from './shop-status';

/**
 * The dashboard's Shopify section: the shop link and each webhook topic's recorded state, with
 * what to do about a refusal. It reads what was recorded (no call to Shopify while a page renders);
 * `referrals shopify status` also asks Shopify which subscriptions it still lists.
 */
export async function shopifyConnection(db: Knex, brandId: string): Promise<ConnectionSection | null> {
  let status;
  try {
    status = await shopStatus(db, brandId);
  } catch (error) {
    if (error instanceof NotFound) return null;
    throw error;
  }
  const refused = status.subscriptions.filter((row) => row.status === 'refused').length;
  const codes = await discountStatus(db, brandId);
  const actions = [...status.actions];
  if (codes.status === 'failed' && codes.last_error) actions.push(`Referral codes as Shopify discount codes: ${codes.last_error}`);
  return {
    title: 'Shopify',
    summary:
      status.status === 'uninstalled'
        ? `${status.shop}: the app was uninstalled; no orders arrive.`
        : `${status.shop}: installed (${status.app} app), ${refused === 0 ? 'no refused webhook topics' : `${refused} webhook topic(s) refused`}.`,
    facts: [
      ['Shop', status.shop],
      ['App', status.app],
      ['Status', status.status],
      ['Scopes', status.scopes ?? '—'],
      ['Webhook subscriptions', status.webhooks],
      [
        "Friend's offer at checkout",
        `${codes.status}${codes.discount_id ? ` (${codes.discount_kind} discount)` : ''}: ${codes.codes.synced} of ${codes.codes.wanted} referral codes are Shopify discount codes` +
          (codes.codes.pending ? `, ${codes.codes.pending} pending` : '') +
          (codes.codes.refused ? `, ${codes.codes.refused} refused` : ''),
      ],
    ],
    tables: [
      {
        caption: 'Webhook subscriptions',
        columns: ['Topic', 'Status', 'Shopify said', 'Checked at'],
        rows: status.subscriptions.map((row) => [row.topic, row.status, row.error ?? '', new Date(row.checked_at).toISOString()]),
      },
      ...(codes.refused.length
        ? [{ caption: 'Referral codes Shopify refused', columns: ['Code', 'Shopify said'], rows: codes.refused.map((row) => [row.code, row.error ?? '']) }]
        : []),
    ],
    actions,
  };
}

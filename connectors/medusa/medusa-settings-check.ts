import type { Knex } from 'knex';
import type { Brand } from '../../core/brands/brand';
import { Invalid } from '../../core/errors';
import { isMedusaLinked } from './medusa-link';

/**
 * What a Medusa store can apply of a settings change: its plugin makes reward codes, not store
 * credit yet (docs/merchants/medusa.md "Reward codes"), so a brand linked to a Medusa store may not
 * choose store credit: its rewards would wait for a credit its plugin never makes.
 */
export async function checkMedusaSettings(db: Knex, brand: Brand, next: Brand): Promise<void> {
  if (next.reward_fulfilment !== 'store_credit' || brand.reward_fulfilment === 'store_credit') return;
  if (await isMedusaLinked(db, brand.brand_id)) throw new Invalid('reward_fulfilment: store credit is not available on a Medusa store yet; choose coupon (single-use codes) or payout');
}

import { model } from '@medusajs/framework/utils';

/**
 * How far the promotion sync got, one row per brand: the next run asks the referral service for
 * the advocates changed since `updated_since`, and pulls everything again when the friend offer's
 * hash differs from `offer_hash` (lib/promotion-sync.ts). Kept in Medusa's database so a restart
 * neither loses nor repeats work.
 */
export const ReferralPromotionSync = model
  .define('referral_promotion_sync', {
    id: model.id({ prefix: 'refsync' }).primaryKey(),
    brand_id: model.text(),
    updated_since: model.text().nullable(),
    offer_hash: model.text().nullable(),
  })
  .indexes([{ on: ['brand_id'], unique: true }]);

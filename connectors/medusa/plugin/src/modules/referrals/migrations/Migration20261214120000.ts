import { Migration } from '@medusajs/framework/mikro-orm/migrations';

/** The referral_promotion_sync table of models/referral-promotion-sync.ts. */
export class Migration20261214120000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists "referral_promotion_sync" (
      "id" text not null,
      "brand_id" text not null,
      "updated_since" text null,
      "offer_hash" text null,
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now(),
      "deleted_at" timestamptz null,
      constraint "referral_promotion_sync_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_referral_promotion_sync_deleted_at" ON "referral_promotion_sync" (deleted_at) WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_referral_promotion_sync_brand_id_unique" ON "referral_promotion_sync" (brand_id) WHERE deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "referral_promotion_sync" cascade;`);
  }
}

import { Migration } from '@medusajs/framework/mikro-orm/migrations';

/** The referral_delivery table of models/referral-delivery.ts. */
export class Migration20261123170000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists "referral_delivery" (
      "id" text not null,
      "brand_id" text not null,
      "event_name" text not null,
      "order_id" text not null,
      "body" text not null,
      "status" text check ("status" in ('pending', 'delivered', 'rejected')) not null default 'pending',
      "attempts" integer not null default 0,
      "next_attempt_at" timestamptz not null,
      "last_error" text null,
      "settled_at" timestamptz null,
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now(),
      "deleted_at" timestamptz null,
      constraint "referral_delivery_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_referral_delivery_deleted_at" ON "referral_delivery" (deleted_at) WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_referral_delivery_status_next_attempt_at" ON "referral_delivery" (status, next_attempt_at) WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_referral_delivery_brand_id_order_id" ON "referral_delivery" (brand_id, order_id) WHERE deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "referral_delivery" cascade;`);
  }
}

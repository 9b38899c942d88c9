import { model } from '@medusajs/framework/utils';

/**
 * One order snapshot on its way to the referral service, written before the first attempt so a
 * restart or a crash cannot lose it: the job re-sends what is due until it is accepted or refused.
 */
export const ReferralDelivery = model
  .define('referral_delivery', {
    id: model.id({ prefix: 'refdel' }).primaryKey(),
    brand_id: model.text(),
    event_name: model.text(),
    order_id: model.text(),
    /** The exact signed JSON: every attempt resends the same event_id, so the service counts it once. */
    body: model.text(),
    status: model.enum(['pending', 'delivered', 'rejected']).default('pending'),
    attempts: model.number().default(0),
    next_attempt_at: model.dateTime(),
    last_error: model.text().nullable(),
    settled_at: model.dateTime().nullable(),
  })
  .indexes([{ on: ['status', 'next_attempt_at'] }, { on: ['brand_id', 'order_id'] }]);
